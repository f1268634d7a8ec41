// The CloudWatch Logs filter pattern for a debug-log query: CloudWatch narrows the events it
// returns (what it scans is the same; what crosses the wire and what the API function parses is
// not), and the reader still checks every record with recordMatches(). So the pattern need only
// be a superset of the answer: where a filter cannot be said exactly in the pattern language it
// is left to the code, never approximated narrower.
import { entityTag, LOG_LEVELS, type LogQuery } from './log-sink.js';

/** FilterLogEvents refuses longer patterns. */
export const MAX_FILTER_PATTERN_LENGTH = 1024;

const ENTITY = '$.debugLog.entity';
const LEVEL = '$.debugLog.level';

/** A value safe between double quotes in a pattern; a glob only with its one `*` at the end. */
const quotable = (value: string) => /^[A-Za-z0-9_./-]*\*?$/.test(value);

/** The entity value a filter matches, as a pattern string (`unit-mysql-*` for an application). */
function includedEntity(filter: string): string | undefined {
  // A bare application name means its units (entityMatcher); `unit-mysql-*` is a superset, since
  // it also matches unit-mysql-router-0, which the code then drops.
  const value = /^[a-z][a-z0-9-]*$/.test(filter) && !/^(unit|machine)-/.test(filter) ? `unit-${filter}-*` : entityTag(filter);
  return quotable(value) ? value : undefined;
}

/** Only exact tags are excluded by the pattern: `!= "unit-mysql-*"` would also drop mysql-router's units. */
function excludedEntity(filter: string): string | undefined {
  if (/^[a-z][a-z0-9-]*$/.test(filter) && !/^(unit|machine)-/.test(filter)) return undefined;
  const value = entityTag(filter);
  return quotable(value) && !value.includes('*') ? value : undefined;
}

const anyOf = (conditions: string[]) => (conditions.length === 1 ? conditions[0]! : `(${conditions.join(' || ')})`);

function includeClause(query: Pick<LogQuery, 'include'>): string | undefined {
  if (!query.include?.length) return undefined;
  const values = query.include.map(includedEntity);
  if (values.some((v) => v === undefined)) return undefined;
  return anyOf([...new Set(values as string[])].map((v) => `${ENTITY} = "${v}"`));
}

function excludeClauses(query: Pick<LogQuery, 'exclude'>): string[] {
  const values = (query.exclude ?? []).map(excludedEntity).filter((v): v is string => v !== undefined);
  return [...new Set(values)].map((v) => `${ENTITY} != "${v}"`);
}

function levelClause(query: Pick<LogQuery, 'level'>): string | undefined {
  if (!query.level || query.level === LOG_LEVELS[0]) return undefined;
  return anyOf(LOG_LEVELS.slice(LOG_LEVELS.indexOf(query.level)).map((l) => `${LEVEL} = "${l}"`));
}

/**
 * `{ $.debugLog.entity = "unit-mysql-0" && ($.debugLog.level = "ERROR" || ...) }`. A JSON
 * pattern matches JSON events only, so Lambda's START/END/REPORT lines never come back; the
 * entity condition (at least "present") keeps the function's other JSON lines (Powertools) out.
 */
export function debugLogFilterPattern(query: Omit<LogQuery, 'limit' | 'after'>): string {
  const present = `${ENTITY} = "*"`;
  const include = includeClause(query);
  const level = levelClause(query);
  const exclude = excludeClauses(query);
  // Longest first to go when the whole would be too long: each clause dropped widens the answer.
  const candidates = [
    [include ?? present, ...exclude, ...(level ? [level] : [])],
    [include ?? present, ...(level ? [level] : [])],
    [present, ...(level ? [level] : [])],
    [present],
  ];
  for (const clauses of candidates) {
    const pattern = `{ ${clauses.join(' && ')} }`;
    if (pattern.length <= MAX_FILTER_PATTERN_LENGTH) return pattern;
  }
  return `{ ${present} }`;
}
