export declare function withSection(
  page: string,
  file: string,
  begin: string,
  end: string,
  body: string,
): Promise<string>;
