// lifecycles.txt: "All such things start existence Alive" and "No such thing can ever change to
// an earlier state".
export type Life = 'alive' | 'dying' | 'dead';

const order: Record<Life, number> = { alive: 0, dying: 1, dead: 2 };

export const isAlive = (life: Life) => life === 'alive';

/** True when moving from `from` to `to` does not go backwards. */
export const isForward = (from: Life, to: Life) => order[to] >= order[from];
