export declare const PAGE: string;
export declare const BEGIN: string;
export declare const END: string;
export interface PackageInfo {
  readonly name: string;
  readonly dir: string;
  readonly description: string;
  readonly needs: readonly string[];
  readonly peers: readonly string[];
}
export declare function packages(): Promise<PackageInfo[]>;
export declare function packageSection(list: readonly PackageInfo[]): string;
export declare function withCurrentGraph(page: string): Promise<string>;
