// An outage of what /readyz requires makes every replica unready at once. Under the default
// eviction policy (IfHealthyBudget) a disruption budget then refuses every eviction, and a node
// drain hangs until the outage ends: the budgets must let unready pods go.
import { describe, expect, it } from 'vitest';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { loadYamlDocuments } from './deploy-support/repo-files.ts';

const budgets = loadYamlDocuments('deploy/kubernetes')
  .map((d) => d.object)
  .filter((o) => o.kind === 'PodDisruptionBudget') as unknown as IPodDisruptionBudget[];

describe('PodDisruptionBudgets during an outage', () => {
  it.each(budgets.map((b) => [b.metadata?.name, b] as const))(
    '%s lets unready pods be evicted',
    (_name, budget) => {
      expect(budget.spec?.unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
    },
  );

  it('are there to check', () => {
    expect(budgets.length).toBeGreaterThanOrEqual(3);
  });
});
