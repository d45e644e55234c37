import type { AgentCard, AgentExtension, AgentSkill, JsonObject } from '@switchyard/protocol';
import { z } from '@switchyard/runtime';

const strings = z.array(z.string());

const securityRequirement = z.object({ schemes: z.record(z.string(), z.object({ list: strings })) });

const skill = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().min(1),
  tags: strings,
  examples: strings.optional(),
  inputModes: strings.optional(),
  outputModes: strings.optional(),
  securityRequirements: z.array(securityRequirement).optional(),
});

const jsonObject = z.record(z.string(), z.json());

const extension = z.object({
  uri: z.string().min(1),
  description: z.string().optional(),
  required: z.boolean().optional(),
  params: jsonObject.optional(),
});

/**
 * The part of an agent registration's card the operator writes (ARCHITECTURE.md: interfaces and
 * security are the gateway's). Unknown keys are dropped, so nothing else in a registration can
 * reach a public card. `extendedSkills` appear only in the authenticated extended card (§7.8).
 */
export const cardTemplateSchema = z.object({
  name: z.string().min(1),
  description: z.string().min(1),
  version: z.string().min(1),
  skills: z.array(skill),
  extendedSkills: z.array(skill).optional(),
  defaultInputModes: strings.min(1).default(['text/plain']),
  defaultOutputModes: strings.min(1).default(['text/plain']),
  provider: z.object({ url: z.string().min(1), organization: z.string().min(1) }).optional(),
  documentationUrl: z.string().optional(),
  iconUrl: z.string().optional(),
  capabilities: z.object({ extensions: z.array(extension).optional() }).optional(),
});

export type CardTemplate = z.infer<typeof cardTemplateSchema>;

/** The card's own fields, before the gateway adds interfaces, capabilities and security. */
export type CardBody = Omit<
  AgentCard,
  'supportedInterfaces' | 'capabilities' | 'securitySchemes' | 'securityRequirements'
>;

/**
 * The template's skills, each skill's security requirements kept only where every scheme they
 * name is one the card declares (§2.5: requirements refer to `securitySchemes`): a requirement
 * naming another (`bearer` on a gateway without JWTs, a made-up name) no caller could meet, so it
 * is dropped, and a skill left with none takes the card's own.
 */
export function templateSkills(list: CardTemplate['skills'], schemes: Record<string, unknown>): AgentSkill[] {
  return list.map(({ securityRequirements, ...skill }) => {
    const met = securityRequirements?.filter((r) =>
      Object.keys(r.schemes).every((name) => Object.hasOwn(schemes, name)),
    );
    return met && met.length > 0 ? { ...skill, securityRequirements: met } : skill;
  });
}

export function templateExtensions(template: CardTemplate): AgentExtension[] | undefined {
  return template.capabilities?.extensions?.map((e) => ({
    ...e,
    ...(e.params ? { params: e.params as JsonObject } : {}),
  }));
}
