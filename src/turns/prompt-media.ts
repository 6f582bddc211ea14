import { type MediaRendering, placeholders, withBytes } from '../contract/openai-messages'
import type { ModelSettings } from '../models/config'
import type { TurnSession } from './session'

/**
 * How a prompt's images and documents reach the model: their bytes (the request's own, else the
 * session's, as data URLs), or their placeholder text when the deployment (IMAGES_TO_MODEL) or
 * the request (`images: 'placeholder'`) says the model has no vision.
 *
 * @example
 * toOpenAIMessages(view, system, promptMedia(deps.session, request, deps.models))
 */
export function promptMedia(
  session: Pick<TurnSession, 'blobData'>,
  request: { images?: 'placeholder' | undefined },
  models: Pick<ModelSettings, 'imagesToModel'>,
): MediaRendering {
  if (request.images === 'placeholder' || models.imagesToModel === 'placeholder') return placeholders
  return withBytes((ref) => session.blobData(ref))
}
