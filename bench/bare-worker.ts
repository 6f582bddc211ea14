/** The smallest Worker there is (it answers "ok"): the floor of a cold start under the same dev server. */
export default {
  fetch: () => new Response('ok'),
} satisfies ExportedHandler
