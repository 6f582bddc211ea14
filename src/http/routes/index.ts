import { blobRoutes } from './blobs'
import { branchRoutes } from './branches'
import { chatCompletionRoutes } from './chat-completions'
import { compactRoutes } from './compact'
import { conversationsRoutes } from './conversations'
import { eventRoutes } from './events'
import { routes } from './helpers'
import { memoryRoutes } from './memories'
import { messagesRoutes } from './messages'
import { modelRoutes } from './models'
import { portabilityRoutes } from './portability'
import { responsesRoutes } from './responses'
import { searchRoutes } from './search'
import { sessionRoutes } from './sessions'
import { streamRoutes } from './stream'
import { turnRoutes } from './turns'
import { usageRoutes } from './usage'
import { webhookRoutes } from './webhooks'

/** Every `/v1` route of the contract; each handler makes one RPC call to a Durable Object (a few, two or three). */
export const apiRoutes = routes()
  .route('/', sessionRoutes)
  .route('/', eventRoutes)
  .route('/', blobRoutes)
  .route('/', portabilityRoutes)
  .route('/', compactRoutes)
  .route('/', branchRoutes)
  .route('/', searchRoutes)
  .route('/', turnRoutes)
  .route('/', chatCompletionRoutes)
  .route('/', messagesRoutes)
  .route('/', modelRoutes)
  .route('/', responsesRoutes)
  .route('/', conversationsRoutes)
  .route('/', webhookRoutes)
  .route('/', usageRoutes)
  .route('/', streamRoutes)
  .route('/', memoryRoutes)
