/** The Hono environment of the app: the Worker's bindings, and what middleware sets per request. */
export type AppEnv = { Bindings: Env; Variables: { userId: string; requestId: string } }
