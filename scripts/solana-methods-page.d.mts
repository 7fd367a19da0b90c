export declare const PAGE: string;
export declare const BEGIN: string;
export declare const END: string;
export declare const WS_BEGIN: string;
export declare const WS_END: string;
export declare function methodsTable(table?: Readonly<Record<string, unknown>>): string;
export declare function subscriptionsTable(table?: Readonly<Record<string, unknown>>): string;
export declare function withCurrentTable(
  page: string,
  table?: string,
  subscriptions?: string,
): Promise<string>;
