export declare function mallocHeapBytes(): number | undefined;
