import { contentTypeNotSupported, type Message, type Part } from '@switchyard/protocol';

/** The media type a part carries, with the defaults the spec implies for text and data parts. */
function partMediaType(part: Part): string | undefined {
  if (part.mediaType) return part.mediaType.split(';')[0]?.trim().toLowerCase();
  if (part.text !== undefined) return 'text/plain';
  if (part.data !== undefined) return 'application/json';
  return undefined; // raw/url without a declared type: nothing to check
}

function accepts(mode: string, type: string): boolean {
  const m = mode.toLowerCase();
  if (m === '*/*' || m === type) return true;
  return m.endsWith('/*') && type.startsWith(m.slice(0, -1));
}

/**
 * ContentTypeNotSupported for a part whose media type the agent does not take (digest §7.2 rule
 * 16). The accepted set is the card's defaultInputModes plus every skill's inputModes.
 */
export function checkContentTypes(message: Message, card: Record<string, unknown>): void {
  const modes = new Set<string>((card.defaultInputModes as string[] | undefined) ?? []);
  for (const skill of (card.skills as Array<{ inputModes?: string[] }> | undefined) ?? []) {
    for (const mode of skill.inputModes ?? []) modes.add(mode);
  }
  if (modes.size === 0) return;
  for (const part of message.parts) {
    const type = partMediaType(part);
    if (type && ![...modes].some((mode) => accepts(mode, type)))
      throw contentTypeNotSupported(type, [...modes]);
  }
}
