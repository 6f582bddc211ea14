import { DurableObject } from 'cloudflare:workers'

/**
 * One chat session: its append-only event log lives in this object's SQLite storage.
 * (The storage schema and the RPC methods arrive with the Durable Object issue.)
 */
export class SessionObject extends DurableObject {}
