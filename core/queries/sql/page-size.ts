// Blockscout's page: every REST list answers at most this many items, and
// the queries read one row more to tell whether another page follows.
export const PAGE_SIZE = 50
