/**
 * A model's SQL as statements: the statements before its query (a temp table, `SET VARIABLE`)
 * run first, then the query builds the model (see `src/warehouse/README.md`).
 */

/**
 * The statements of `sql`, split at each `;` outside quotes and comments, without those that hold
 * only whitespace and comments: the last is the query.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  while (i < sql.length) {
    const skipped = skipQuotedOrComment(sql, i);
    if (skipped > i) i = skipped;
    else {
      if (sql[i] === ';') {
        statements.push(sql.slice(start, i));
        start = i + 1;
      }
      i++;
    }
  }
  statements.push(sql.slice(start));
  return statements.map((s) => s.trim()).filter((s) => withoutComments(s).trim() !== '');
}

/** Where the quoted text or comment starting at `i` ends (`i` when none starts there). */
function skipQuotedOrComment(sql: string, i: number): number {
  const c = sql[i];
  // A doubled quote inside a literal ends one run and starts the next: the same text is skipped.
  if (c === "'" || c === '"') return endOf(sql, c, i + 1, 1);
  if (sql.startsWith('--', i)) return endOf(sql, '\n', i + 2, 1);
  if (sql.startsWith('/*', i)) return endOf(sql, '*/', i + 2, 2);
  return i;
}

function endOf(sql: string, closing: string, from: number, length: number): number {
  const end = sql.indexOf(closing, from);
  return end === -1 ? sql.length : end + length;
}

function withoutComments(sql: string): string {
  return sql.replace(/--.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
}
