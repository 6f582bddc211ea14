/**
 * The media toolkit: pure functions over the bytes of images and documents — strict base64 and
 * data URLs, type sniffing, pixel sizes and page counts read from headers, token estimates by the
 * providers' rules, placeholders, and the SHA-256 blobs are stored by.
 */
export { type Base64Problem, type Base64ProblemCode, type Base64Result, decodeBase64, encodeBase64 } from './base64'
export { type DataUrlProblemCode, type DataUrlResult, parseDataUrl, toDataUrl } from './data-url'
export { type ImageSize, imageSize } from './image-size'
export {
  type BinaryPart,
  blobRef,
  DOCUMENT_TYPES,
  type DocumentPart,
  type DocumentType,
  IMAGE_TYPES,
  type ImagePart,
  type ImageType,
  isBlobRef,
  isDocumentPart,
  isDocumentType,
  isImagePart,
  isImageType,
  type SupportedMediaType,
} from './parts'
export { MAX_INFLATED_BYTES, pdfPageCount, pdfPageCountDeep } from './pdf-pages'
export { formatBytes, mediaPlaceholder, PLACEHOLDER_TITLE_LIMIT } from './placeholder'
export { sha256Hex } from './sha256'
export { checkMediaType, mediaTypeProblem, normalizeMediaType, type SniffedType, sniffMediaType } from './sniff'
export { documentTokens, type ImageDetail, type ImageTokenRule, imageTokens, PDF_PAGE_TOKENS } from './tokens'
export { plainTextFault, type TextFault } from './utf8'
