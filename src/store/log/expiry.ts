/** When a session's times say it ends: the fields of its row that decide it. */
interface Times {
  fixedExpiresAt: string | null
  idleTtlSeconds: number | null
  lastAppendAt: string
}

/** `expiresAt` for a ttl counted from now; null never expires. */
export const expiryFrom = (ttlSeconds: number | null): string | null =>
  ttlSeconds === null ? null : new Date(Date.now() + ttlSeconds * 1000).toISOString()

/** When a session expires: the earlier of its fixed expiry and its last append plus its idle ttl (null: never). */
export function expiryOf(r: Times): string | null {
  const idle = r.idleTtlSeconds === null ? null : Date.parse(r.lastAppendAt) + r.idleTtlSeconds * 1000
  const fixed = r.fixedExpiresAt === null ? null : Date.parse(r.fixedExpiresAt)
  const earliest = idle === null ? fixed : fixed === null ? idle : Math.min(idle, fixed)
  return earliest === null ? null : new Date(earliest).toISOString()
}

/** The row after an append now: its idle expiry moves on. */
export function appendedNow(record: Times): { lastAppendAt: string; expiresAt: string | null } {
  const lastAppendAt = new Date().toISOString()
  return { lastAppendAt, expiresAt: expiryOf({ ...record, lastAppendAt }) }
}

/** Whether the session has expired: from that moment it is absent, before any cleanup ran. */
export const hasExpired = (record: { expiresAt: string | null }): boolean =>
  record.expiresAt !== null && Date.parse(record.expiresAt) <= Date.now()
