// A table any view can use: click or Enter on a header sorts by it (again: the other way), and the
// filter keeps the rows whose any cell contains the text.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export interface Column<R> {
  title: string;
  /** What the column sorts and filters by. */
  text: (row: R) => string;
  /** How the cell looks, if not as its text. */
  cell?: (row: R) => ComponentChildren;
}

const byText = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

export function Table<R>({ name, columns, rows, rowKey }: { name: string; columns: Column<R>[]; rows: R[]; rowKey: (row: R) => string }) {
  const [sort, setSort] = useState<{ column: number; descending: boolean }>({ column: 0, descending: false });
  const [filter, setFilter] = useState('');
  const needle = filter.trim().toLowerCase();
  const shown = rows.filter((r) => !needle || columns.some((c) => c.text(r).toLowerCase().includes(needle)));
  const by = columns[sort.column] ?? columns[0]!;
  shown.sort((a, b) => byText(by.text(a), by.text(b)) * (sort.descending ? -1 : 1));
  const sortBy = (column: number) => setSort((s) => ({ column, descending: s.column === column ? !s.descending : false }));
  return (
    <section class="table-view" aria-label={name}>
      <label class="filter">
        Filter {name.toLowerCase()} <input type="search" value={filter} onInput={(e) => setFilter((e.target as HTMLInputElement).value)} />
      </label>
      <div class="scroll">
        <table data-table={name}>
          <thead>
            <tr>
              {columns.map((c, i) => (
                <th key={c.title} aria-sort={sort.column === i ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
                  <button type="button" onClick={() => sortBy(i)}>
                    {c.title}
                    {sort.column === i ? (sort.descending ? ' ▼' : ' ▲') : ''}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={rowKey(r)}>
                {columns.map((c) => (
                  <td key={c.title}>{c.cell ? c.cell(r) : c.text(r)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
        {shown.length ? null : <p class="empty">{rows.length ? 'Nothing matches the filter.' : 'None.'}</p>}
      </div>
    </section>
  );
}
