/** A file this project cannot read; the message is the one-line reason shown to the user. */
export class FormatError extends Error {
  override name = 'FormatError';
}
