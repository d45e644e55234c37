import { describe, expect, it } from 'vitest';
import { bundledAgents, findBundledAgent } from '../src/index.ts';

describe('bundled agents', () => {
  it('lists each executor once and finds it by name', () => {
    const executors = bundledAgents.map((agent) => agent.executor);
    expect(executors).toEqual(['echo', 'invoice-reconciler', 'booking', 'slow', 'conformance']);
    for (const executor of executors) expect(findBundledAgent(executor)?.executor).toBe(executor);
    expect(findBundledAgent('nope')).toBeUndefined();
  });

  it.each(bundledAgents.map((agent) => [agent.executor, agent] as const))(
    '%s has a complete card',
    (_executor, agent) => {
      const { card } = agent;
      expect(card.version).toBe('1.0.0');
      expect(card.description).toMatch(/Message-vs-Task rule/);
      expect(card.defaultInputModes).toEqual(['text/plain', 'application/json']);
      expect(card.defaultOutputModes.length).toBeGreaterThan(0);
      expect(card.skills.length).toBeGreaterThan(0);
      for (const skill of card.skills) {
        expect(skill.id).toMatch(/^[a-z-]+$/);
        expect(skill.name).not.toBe('');
        expect(skill.description).not.toBe('');
        expect(skill.tags.length).toBeGreaterThan(0);
        expect(skill.examples?.length).toBeGreaterThan(0);
      }
    },
  );
});
