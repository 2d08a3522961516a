import type { Accounts, ApiKeyRecord, Organization, Project } from '../projections/state/accounts.ts';

/**
 * Operator actions on accounts. They run against the state store directly, or inside a running
 * service when the CLI reaches it through the admin socket (the embedded store is single-process).
 */
export interface OperatorActions {
  createOrganization(input: { name: string; slug?: string }): Promise<Organization>;
  createProject(input: { organization: string; name: string; plan: string; slug?: string }): Promise<Project>;
  setPlan(input: { project: string; plan: string; alertsPacks?: number }): Promise<Project>;
  listProjects(input: { organization: string }): Promise<Project[]>;
  createKey(input: { project: string; name?: string }): Promise<{ key: string; record: ApiKeyRecord }>;
  revokeKey(input: { keyId: string }): Promise<ApiKeyRecord>;
  listKeys(input: { project: string }): Promise<ApiKeyRecord[]>;
}

export class OperatorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperatorError';
  }
}

export function operatorActions(accounts: Accounts): OperatorActions {
  async function org(ref: string) {
    const found = await accounts.organization(ref);
    if (!found) throw new OperatorError(`no organization ${ref}`);
    return found;
  }
  async function project(ref: string) {
    const found = await accounts.project(ref);
    if (!found) throw new OperatorError(`no project ${ref}`);
    return found;
  }
  return {
    createOrganization: (input) => accounts.createOrganization(input),
    async createProject(input) {
      const o = await org(input.organization);
      return accounts.createProject({
        organizationId: o.id,
        name: input.name,
        plan: input.plan,
        slug: input.slug,
      });
    },
    async setPlan(input) {
      return accounts.setPlan((await project(input.project)).id, input.plan, input.alertsPacks);
    },
    async listProjects(input) {
      return accounts.projectsOf((await org(input.organization)).id);
    },
    async createKey(input) {
      return accounts.createApiKey({ projectId: (await project(input.project)).id, name: input.name });
    },
    revokeKey: (input) => accounts.revokeApiKey(input.keyId),
    async listKeys(input) {
      return accounts.apiKeys((await project(input.project)).id);
    },
  };
}
