import type { FastifyRequest } from 'fastify';
import type { Principal } from '../projections/state/accounts.ts';
import { principalOf } from './plugins/authentication.ts';
import { problem } from './problem.ts';

/**
 * A key acts for its own project and organization only. Routes that name a project or an
 * organization in their path check it here (403 `forbidden` naming the path parameter).
 */

/** The caller's principal, when `projectId` (id or slug) is its project. */
export function requireOwnProject(request: FastifyRequest, projectId: string): Principal {
  const principal = principalOf(request);
  const project = principal.project;
  if (projectId !== project.id && projectId !== project.slug) {
    throw problem('forbidden', `This API key belongs to project ${project.id}, not ${projectId}.`, {
      errors: [
        { location: 'path.projectId', message: 'is not the project of this API key', value: projectId },
      ],
    });
  }
  return principal;
}

/** Refuses an organization other than the key's own. */
export function requireOwnOrganization(orgId: string, own: string): void {
  if (orgId !== own) {
    throw problem('forbidden', `This API key belongs to organization ${own}, not ${orgId}.`, {
      errors: [{ location: 'path.orgId', message: 'is not the organization of this API key', value: orgId }],
    });
  }
}
