import { v5 as uuidv5 } from 'uuid';

/** Fixed namespace for channel ids: the same XMLTV id gives the same UUID in every deployment. */
export const CHANNEL_NAMESPACE = '4f6b9a52-3c1e-5d8a-9e27-0b7c1d2e3f40';

/** Channel id: UUID v5 of the XMLTV channel id. */
export function channelIdFor(xmltvId: string): string {
  return uuidv5(xmltvId, CHANNEL_NAMESPACE);
}

/** True when the text is a UUID in canonical form (any version). */
export function isUuid(text: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text);
}
