/**
 * What a table of records needs to know about their kind. Providers describe their kinds with more
 * (paths, routing terms: engine/providers/gpucloud/catalogue.ts); the renderer needs only this.
 */

/** A table column: header and a dotted path into the record (arrays are joined, `{description}` objects shown by description). */
export interface Column {
  header: string;
  path: string;
  /** How to show the value; default is plain text. `price` is a rate (4 decimals), `money` an amount (2): render/money.ts. */
  format?: 'price' | 'money' | 'gb' | 'list' | 'bool' | 'status';
  /** Columns with a low priority are dropped first when the terminal is narrow. */
  priority?: number;
}

export interface TableSpec {
  columns: Column[];
  /** Field that identifies a record: kept whole however narrow the terminal. */
  idField: string;
  /** Human name field, kept whole too. */
  nameField?: string;
  /**
   * Tables show one row per element of this array field (with the element under `as`), for responses
   * that nest a list per record: availability is one record per location with a list of types, and a
   * row per location and type keeps every type visible however narrow the terminal.
   */
  rowsPer?: { field: string; as: string };
}

/** A column written as data, the keys once (the form of engine/providers/gpucloud/catalogue.ts): header, path, priority, format. */
export type ColumnRow = readonly [header: string, path: string, priority?: number, format?: Column['format']];

/** The columns of rows written as data. */
export function columnsOf(rows: readonly ColumnRow[]): Column[] {
  return rows.map(([header, path, priority, format]) => ({ header, path, ...(format ? { format } : {}), ...(priority !== undefined ? { priority } : {}) }));
}
