export interface DeclaredErrorRow {
  readonly code: number;
  readonly message: string;
  readonly meaning: string;
  readonly owner: string;
}
export declare const PAGE: string;
export declare const BEGIN: string;
export declare const END: string;
export declare function declaredErrors(): DeclaredErrorRow[];
export declare function errorCodesTable(errors?: readonly DeclaredErrorRow[]): string;
export declare function withCurrentTable(page: string, table?: string): Promise<string>;
