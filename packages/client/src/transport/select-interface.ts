import { A2AError, type AgentCard, type AgentInterface } from '@switchyard/protocol';
import { A2A_VERSION, SUPPORTED_BINDINGS, type SupportedBinding } from '../version.ts';

export interface SelectedInterface {
  binding: SupportedBinding;
  /** Absolute URL (a relative one is resolved against the card's URL). */
  url: string;
  tenant?: string;
}

/**
 * Picks the interface to talk to: the first entry of `supportedInterfaces` (card order is the
 * agent's preference, digest §2.5) whose binding this client implements and whose
 * `protocolVersion` is 1.0, patch ignored (§6). `prefer` forces one binding.
 */
export function selectInterface(
  card: AgentCard,
  options: { prefer?: SupportedBinding; baseUrl?: string } = {},
): SelectedInterface {
  const usable = (card.supportedInterfaces ?? []).filter(
    (i): i is AgentInterface & { protocolBinding: SupportedBinding } =>
      (SUPPORTED_BINDINGS as readonly string[]).includes(i.protocolBinding) &&
      speaksOurVersion(i.protocolVersion),
  );
  const chosen = options.prefer ? usable.find((i) => i.protocolBinding === options.prefer) : usable[0];
  if (!chosen) {
    const offered =
      (card.supportedInterfaces ?? []).map((i) => `${i.protocolBinding} ${i.protocolVersion}`).join(', ') ||
      'none';
    const wanted = options.prefer ?? SUPPORTED_BINDINGS.join(' or ');
    throw new A2AError('UnsupportedOperation', {
      message: `agent "${card.name}" offers no ${wanted} interface for A2A ${A2A_VERSION} (offered: ${offered})`,
    });
  }
  return {
    binding: chosen.protocolBinding,
    url: options.baseUrl ? new URL(chosen.url, options.baseUrl).toString() : chosen.url,
    ...(chosen.tenant ? { tenant: chosen.tenant } : {}),
  };
}

function speaksOurVersion(version: string | undefined): boolean {
  if (version === undefined || version === '') return true;
  const [major, minor] = version.split('.');
  return `${major}.${minor ?? '0'}` === A2A_VERSION;
}
