import { randomBytes } from 'node:crypto';
import { type Entitlement, newId, type Organization, type Plan, type Project, sha256 } from './accounts.ts';
import type { User } from './people.ts';
import type { StateStore } from './state-store.ts';

/**
 * Who belongs to which organization, as `owner` or `member`, and invitations by email. Every
 * dashboard read of an organization's projects, keys, connections and alerts starts here: a
 * person reaches a project only through a membership of its organization.
 *
 * Owners invite and remove people and change roles; an organization always keeps an owner.
 * An invitation is accepted once, before it expires (7 days), by a signed-in person whose
 * verified address is the invited one.
 */
export const ROLES = ['owner', 'member'] as const;
export type Role = (typeof ROLES)[number];
export const INVITATION_TTL_MS = 7 * 86_400_000;

export interface Member {
  user_id: string;
  email: string;
  role: Role;
  created_at: Date;
}

export interface Invitation {
  id: string;
  organization_id: string;
  email: string;
  role: Role;
  invited_by: string;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
}

const INVITATION_COLUMNS =
  'id, organization_id, email, role, invited_by, created_at, expires_at, accepted_at, revoked_at';

export type AcceptResult =
  | { ok: true; organization: Organization }
  | { ok: false; reason: 'invalid' | 'other_address' };

export class MembershipError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MembershipError';
  }
}

export class Memberships {
  constructor(private readonly db: StateStore) {}

  /** The organizations a person belongs to, with their role, by name. */
  async organizationsOf(userId: string): Promise<(Organization & { role: Role })[]> {
    return this.db.query<Organization & { role: Role }>(
      `SELECT o.*, m.role FROM organization_members m JOIN organizations o ON o.id = m.organization_id
       WHERE m.user_id = $1 ORDER BY o.name, o.id`,
      [userId],
    );
  }

  /** The organization with the person's role in it, or undefined when they are not a member. */
  async organizationOf(userId: string, orgId: string): Promise<(Organization & { role: Role }) | undefined> {
    const [row] = await this.db.query<Organization & { role: Role }>(
      `SELECT o.*, m.role FROM organization_members m JOIN organizations o ON o.id = m.organization_id
       WHERE m.user_id = $1 AND m.organization_id = $2`,
      [userId, orgId],
    );
    return row;
  }

  /**
   * A project the person reaches through a membership of its organization, with their role and
   * the project's plan (one query: every project page starts here).
   */
  async projectOf(
    userId: string,
    projectId: string,
  ): Promise<{ project: Project; role: Role; plan: Plan; entitlements: Entitlement[] } | undefined> {
    const [row] = await this.db.query<
      Project & { member_role: Role; plan: Plan; entitlements: Entitlement[] }
    >(
      `SELECT p.*, m.role AS member_role, row_to_json(pl.*) AS plan,
         ARRAY(SELECT e.entitlement FROM project_entitlements e WHERE e.project_id = p.id ORDER BY 1) AS entitlements
       FROM projects p
       JOIN organization_members m ON m.organization_id = p.organization_id AND m.user_id = $2
       JOIN plans pl ON pl.code = p.plan_code
       WHERE p.id = $1`,
      [projectId, userId],
    );
    if (!row) return undefined;
    const { member_role, plan, entitlements, ...project } = row;
    return {
      project: { ...project, created_at: new Date(project.created_at) },
      role: member_role,
      plan,
      entitlements,
    };
  }

  async members(orgId: string): Promise<Member[]> {
    return this.db.query<Member>(
      `SELECT m.user_id, u.email, m.role, m.created_at FROM organization_members m
       JOIN users u ON u.id = m.user_id WHERE m.organization_id = $1 ORDER BY m.created_at, u.email`,
      [orgId],
    );
  }

  /** Invites an address; returns the invitation and its token (shown only in the mailed link). */
  async invite(input: {
    organizationId: string;
    email: string;
    role: Role;
    invitedBy: string;
  }): Promise<{ invitation: Invitation; token: string }> {
    const token = randomBytes(32).toString('base64url');
    const [invitation] = await this.db.query<Invitation>(
      `INSERT INTO organization_invitations (id, organization_id, email, role, token_sha256, invited_by, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7)) RETURNING ${INVITATION_COLUMNS}`,
      [
        newId('inv'),
        input.organizationId,
        input.email.trim(),
        input.role,
        sha256(token),
        input.invitedBy,
        INVITATION_TTL_MS / 1000,
      ],
    );
    return { invitation: invitation!, token };
  }

  /** Invitations not yet accepted, revoked or expired. */
  async pendingInvitations(orgId: string): Promise<Invitation[]> {
    return this.db.query<Invitation>(
      `SELECT ${INVITATION_COLUMNS} FROM organization_invitations
       WHERE organization_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
       ORDER BY created_at, id`,
      [orgId],
    );
  }

  /** The live invitation of a token with its organization's name, for the accept page. */
  async invitation(token: string): Promise<(Invitation & { organization_name: string }) | undefined> {
    const [row] = await this.db.query<Invitation & { organization_name: string }>(
      `SELECT ${INVITATION_COLUMNS.split(', ')
        .map((c) => `i.${c}`)
        .join(', ')}, o.name AS organization_name
       FROM organization_invitations i JOIN organizations o ON o.id = i.organization_id
       WHERE i.token_sha256 = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()`,
      [sha256(token)],
    );
    return row;
  }

  /**
   * Accepts an invitation for a signed-in person with a verified address equal to the invited
   * one. Uses the invitation up; a person already a member keeps their role.
   */
  async accept(token: string, user: User): Promise<AcceptResult> {
    return this.db.transaction(async (tx) => {
      const [invitation] = await tx.query<Invitation>(
        `SELECT ${INVITATION_COLUMNS} FROM organization_invitations
         WHERE token_sha256 = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
         FOR UPDATE`,
        [sha256(token)],
      );
      if (!invitation) return { ok: false, reason: 'invalid' };
      if (!user.email_verified_at || invitation.email.toLowerCase() !== user.email.toLowerCase())
        return { ok: false, reason: 'other_address' };
      await tx.query(
        'UPDATE organization_invitations SET accepted_at = now(), accepted_by = $2 WHERE id = $1',
        [invitation.id, user.id],
      );
      await tx.query(
        `INSERT INTO organization_members (organization_id, user_id, role) VALUES ($1, $2, $3)
         ON CONFLICT (organization_id, user_id) DO NOTHING`,
        [invitation.organization_id, user.id, invitation.role],
      );
      const [organization] = await tx.query<Organization>('SELECT * FROM organizations WHERE id = $1', [
        invitation.organization_id,
      ]);
      return { ok: true, organization: organization! };
    });
  }

  /** Revokes a pending invitation of the organization; false when there is none. */
  async revokeInvitation(orgId: string, invitationId: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE organization_invitations SET revoked_at = now()
       WHERE id = $1 AND organization_id = $2 AND accepted_at IS NULL AND revoked_at IS NULL RETURNING id`,
      [invitationId, orgId],
    );
    return rows.length > 0;
  }

  /**
   * Changes a member's role or removes them (`role` undefined). Refused when it would leave the
   * organization without an owner. False when they are not a member.
   */
  async setRole(orgId: string, userId: string, role: Role | undefined): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      // Lock the organization's memberships so two owners cannot demote each other at once.
      const members = await tx.query<{ user_id: string; role: Role }>(
        'SELECT user_id, role FROM organization_members WHERE organization_id = $1 FOR UPDATE',
        [orgId],
      );
      const target = members.find((m) => m.user_id === userId);
      if (!target) return false;
      const owners = members.filter((m) => m.role === 'owner' && m.user_id !== userId).length;
      if (target.role === 'owner' && role !== 'owner' && owners === 0)
        throw new MembershipError('An organization needs an owner: make someone else an owner first.');
      if (role === undefined) {
        await tx.query('DELETE FROM organization_members WHERE organization_id = $1 AND user_id = $2', [
          orgId,
          userId,
        ]);
      } else {
        await tx.query(
          'UPDATE organization_members SET role = $3 WHERE organization_id = $1 AND user_id = $2',
          [orgId, userId, role],
        );
      }
      return true;
    });
  }
}
