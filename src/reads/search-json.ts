import { encodeSearchCursor, type SearchPageJson, type SearchPosition } from '../contract/schemas'
import { jsonArray, jsonObject } from '../json-stream'
import { type PinnedSeqs, withPin } from '../store/log/event-json'
import type { SessionLog } from '../store/log/log'
import type { SearchHit } from '../store/search/lineage-search'

const json = (value: unknown) => JSON.stringify(value)

/**
 * `GET /search`'s page: each hit's event written from its row (with its pin state now), whether
 * it is covered or abandoned, its snippet, and the cursor of the page after.
 */
export function* searchPageJson(log: SessionLog, hits: SearchHit[], next: SearchPosition | null, pinned: PinnedSeqs) {
  yield* jsonObject<SearchPageJson>({
    hits: jsonArray(
      hits.map((hit) =>
        jsonObject<SearchPageJson['hits'][number]>({
          event: withPin(log.json(hit.row), pinned.has(hit.seq)),
          covered: json(hit.covered),
          abandoned: json(hit.abandoned),
          snippet: json(hit.snippet),
          match: json(hit.match),
        }),
      ),
    ),
    nextCursor: json(next === null ? null : encodeSearchCursor(next)),
  })
}
