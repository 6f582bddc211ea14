/**
 * The API's schemas: one source for request validation (field-level 400s), for the request types
 * the layers below take, and for the OpenAPI document served at /v1/openapi.json.
 */
export * from './branches'
export * from './chat-completions'
export * from './common'
export * from './compaction'
export * from './context'
export * from './conversations'
export * from './events'
export * from './export'
export * from './import'
export * from './issues'
export * from './messages'
export * from './policy'
export * from './responses'
export * from './search'
export * from './sessions'
export * from './stream'
export * from './tools'
export * from './turns'
export * from './usage'
export * from './webhooks'
