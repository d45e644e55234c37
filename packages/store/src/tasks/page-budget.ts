/**
 * The default byte budget of one ListTasks page, and of one task's view (GetTask): 4 MiB, the
 * gateway's default request body limit, so no answer is larger than the largest request accepted.
 * The gateway holds a page a few times over while it answers (the rows as received, the parsed
 * objects, the serialized body): some 15-20 MB at this size, so a dozen large pages at once still
 * fit a gateway of a few hundred MB, where one page of 100 tasks of a few MB each did not.
 */
export const DEFAULT_MAX_PAGE_BYTES = 4 * 1024 * 1024;

/** A candidate task's view size in bytes, in parts, as view-bytes.ts measures them. */
export interface TaskViewSize {
  rowBytes: number;
  historyBytes: number;
  /** 0 when the view shows no artifacts. */
  artifactBytes: number;
}

export interface PageFit {
  /** How many of the candidates, from the first, the page holds; at least one if there are any. */
  count: number;
  /**
   * Set when the first task alone is over the budget: the bytes its history may keep, newest
   * messages first, once its row and artifacts are counted. Artifacts are never cut (a partial
   * artifact would be wrong data, and the spec has no way to say so), while the server may return
   * fewer messages than all (digest §7.3: its default amount is its own, and N is a maximum).
   */
  historyMaxBytes?: number;
}

/**
 * Fills a page in order until the next task would pass `maxBytes`. The first task is always taken,
 * so a client paging through always moves on (servers may return fewer than pageSize, AIP-158).
 */
export function fitPage(candidates: readonly TaskViewSize[], maxBytes: number): PageFit {
  let total = 0;
  for (const [index, task] of candidates.entries()) {
    total += task.rowBytes + task.historyBytes + task.artifactBytes;
    if (total <= maxBytes) continue;
    if (index > 0) return { count: index };
    return { count: 1, historyMaxBytes: Math.max(0, maxBytes - task.rowBytes - task.artifactBytes) };
  }
  return { count: candidates.length };
}
