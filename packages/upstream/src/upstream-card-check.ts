import type { AgentCard as SdkAgentCard, AgentInterface as SdkAgentInterface } from '@a2a-js/sdk';

/**
 * What is wrong with an upstream agent card, in words fit for the operator registering it (the
 * field named as the card spells it). Every refusal of a card is one of these; anything else
 * thrown while reading a card is not shown as is.
 */
export class CardProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CardProblem';
  }
}

/** Most bytes of an upstream agent card that are read. */
export const MAX_CARD_BYTES = 1024 * 1024;

/** The bindings and protocol versions (Major.Minor) the platform's A2A client speaks. */
export const USABLE_BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;
export const USABLE_VERSIONS = ['1.0', '0.3'] as const;

type Json = Record<string, unknown>;

/**
 * Checks the shape of a card as the upstream sent it (A2A 1.0, or 0.3 when it names a `url` and
 * no `supportedInterfaces`) and returns a copy the SDK can read without tripping: a field the
 * platform uses must have its type, and a list or object left out is taken as empty, as ProtoJSON
 * leaves out empty fields (the card reader then applies its own defaults: `text/plain` modes, the
 * name as the description). `name` and an interface are required. Throws CardProblem.
 */
export function checkCardShape(raw: unknown): Json {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new CardProblem(`the document is not an A2A agent card: it is ${kindOf(raw)}, not a JSON object`);
  const card = raw as Json;
  const copy: Json = { ...card };
  text(card, 'name', { required: true });
  for (const field of ['description', 'version', 'documentationUrl', 'iconUrl', 'protocolVersion'])
    text(card, field);
  copy.defaultInputModes = textList(card.defaultInputModes, 'defaultInputModes');
  copy.defaultOutputModes = textList(card.defaultOutputModes, 'defaultOutputModes');
  copy.capabilities = capabilities(card.capabilities);
  copy.skills = list(card.skills, 'skills').map((skill, i) => checkSkill(skill, `skills[${i}]`));
  for (const field of ['securitySchemes', 'provider']) {
    const value = card[field];
    if (value !== undefined && !isObject(value)) throw new CardProblem(`${field} must be an object`);
  }
  for (const field of ['securityRequirements', 'security', 'signatures']) list(card[field], field);

  const interfaces = card.supportedInterfaces;
  if (Array.isArray(interfaces) && interfaces.length > 0) {
    interfaces.forEach((entry, i) => checkInterface(entry, `supportedInterfaces[${i}]`));
    return copy;
  }
  if (interfaces !== undefined && !Array.isArray(interfaces))
    throw new CardProblem('supportedInterfaces must be a list');
  // No 1.0 interfaces: a 0.3 card names its main interface in `url`.
  if (card.url === undefined)
    throw new CardProblem('the card names no interface: supportedInterfaces is missing or empty');
  text(card, 'url', { required: true });
  text(card, 'preferredTransport');
  list(card.additionalInterfaces, 'additionalInterfaces').forEach((entry, i) => {
    const where = `additionalInterfaces[${i}]`;
    if (!isObject(entry)) throw new CardProblem(`${where} must be an object`);
    text(entry, 'url', { required: true, where });
    text(entry, 'transport', { required: true, where });
  });
  // The SDK reads a card as 0.3 when it has a `url` and no `supportedInterfaces` at all.
  delete copy.supportedInterfaces;
  return copy;
}

function checkSkill(skill: unknown, where: string): Json {
  if (!isObject(skill)) throw new CardProblem(`${where} must be an object`);
  text(skill, 'id', { required: true, where });
  text(skill, 'name', { where });
  text(skill, 'description', { where });
  const copy: Json = { ...skill, tags: textList(skill.tags, `${where}.tags`) };
  for (const field of ['examples', 'inputModes', 'outputModes'])
    if (skill[field] !== undefined) copy[field] = textList(skill[field], `${where}.${field}`);
  list(skill.securityRequirements, `${where}.securityRequirements`);
  list(skill.security, `${where}.security`);
  return copy;
}

function checkInterface(entry: unknown, where: string): void {
  if (!isObject(entry)) throw new CardProblem(`${where} must be an object`);
  text(entry, 'url', { required: true, where });
  text(entry, 'protocolBinding', { required: true, where });
  text(entry, 'protocolVersion', { where });
  text(entry, 'tenant', { where });
}

function capabilities(value: unknown): Json {
  if (value === undefined) return {};
  if (!isObject(value)) throw new CardProblem('capabilities must be an object');
  for (const flag of ['streaming', 'pushNotifications', 'extendedAgentCard']) {
    if (value[flag] !== undefined && typeof value[flag] !== 'boolean')
      throw new CardProblem(`capabilities.${flag} must be true or false`);
  }
  list(value.extensions, 'capabilities.extensions');
  return value;
}

/** A string field: absent is fine unless required; present, it must be a string (non-empty if required). */
function text(
  obj: Json,
  field: string,
  { required = false, where }: { required?: boolean; where?: string } = {},
) {
  const name = where ? `${where}.${field}` : field;
  const value = obj[field];
  if (value === undefined) {
    if (required) throw new CardProblem(`${name} is missing`);
    return;
  }
  if (typeof value !== 'string') throw new CardProblem(`${name} must be a string, not ${kindOf(value)}`);
  if (required && value.trim() === '') throw new CardProblem(`${name} is empty`);
}

function list(value: unknown, name: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new CardProblem(`${name} must be a list, not ${kindOf(value)}`);
  return value;
}

function textList(value: unknown, name: string): string[] {
  const items = list(value, name);
  const bad = items.findIndex((item) => typeof item !== 'string');
  if (bad >= 0) throw new CardProblem(`${name}[${bad}] must be a string, not ${kindOf(items[bad])}`);
  return items as string[];
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** An interface's protocol version as Major.Minor (A2A ignores the patch), or undefined. */
export function majorMinor(version: string | undefined): string | undefined {
  const match = /^\s*(\d+)(?:\.(\d+))?(?:\.\d+)*\s*$/.exec(version ?? '');
  return match ? `${Number(match[1])}.${Number(match[2] ?? 0)}` : undefined;
}

/** The card's interfaces the platform can call: JSONRPC or HTTP+JSON, in A2A 1.0 or 0.3. */
export function usableInterfaces(card: SdkAgentCard): SdkAgentInterface[] {
  return (card.supportedInterfaces ?? []).filter(
    (i) =>
      (USABLE_BINDINGS as readonly string[]).includes(i.protocolBinding.toUpperCase()) &&
      (USABLE_VERSIONS as readonly (string | undefined)[]).includes(majorMinor(i.protocolVersion)),
  );
}

/** `GRPC 1.0, JSONRPC 9.9`: what a card offers, for a refusal. */
export function describeInterfaces(interfaces: readonly SdkAgentInterface[]): string {
  const offers = interfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion || '(no protocolVersion)'}`);
  return [...new Set(offers)].join(', ') || 'none';
}

/**
 * The interfaces a registration may use: refuses a card that offers none the platform speaks, or
 * not the binding the operator asked for, naming what it does offer.
 */
export function checkUsable(card: SdkAgentCard, binding: string | undefined): SdkAgentInterface[] {
  const usable = usableInterfaces(card);
  const offered = describeInterfaces(card.supportedInterfaces ?? []);
  if (usable.length === 0)
    throw new CardProblem(
      `the card offers no interface this platform can call (it offers ${offered}; ` +
        `usable: ${USABLE_BINDINGS.join(' or ')} in A2A ${USABLE_VERSIONS.join(' or ')})`,
    );
  if (binding && !usable.some((i) => i.protocolBinding.toUpperCase() === binding))
    throw new CardProblem(
      `the card does not offer the requested binding ${binding} in a version this platform speaks ` +
        `(it offers ${offered})`,
    );
  return usable;
}

/**
 * Refuses interfaces the worker would refuse to call: plain http ones where WEBHOOK_ALLOW_HTTP is
 * false (upstream-fetch.ts). Said at registration, not after a task's retries.
 */
export function checkSchemes(usable: readonly SdkAgentInterface[], allowHttp: boolean): void {
  const plain = usable.filter((i) => /^http:/i.test(i.url));
  if (!allowHttp && plain.length > 0)
    throw new CardProblem(
      `the card names plain http interfaces (${plain.map((i) => i.url).join(', ')}), and WEBHOOK_ALLOW_HTTP is false`,
    );
}

/**
 * Refuses a card that requires extensions: the platform calls an upstream with the extensions of
 * the message it forwards, never activating one for the client, so every call would be refused
 * with ExtensionSupportRequired (§6) and every task would fail. Said at registration instead.
 */
export function checkRequiredExtensions(card: SdkAgentCard): void {
  const required = (card.capabilities?.extensions ?? []).filter((e) => e.required).map((e) => e.uri);
  if (required.length > 0)
    throw new CardProblem(
      `the card requires extensions this platform does not activate when it calls an agent (${required.join(', ')})`,
    );
}
