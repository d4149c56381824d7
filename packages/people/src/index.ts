// @driftwatch/people: users, organizations' members, sessions, invitations, password hashing and
// the audit trail of the people domain, on the Store port of @driftwatch/core. The server's routes
// and CLI call it; an embedder can too, without the server.
export { isPeopleError, PeopleError, type PeopleErrorOptions } from "./errors.js";
export { DEFAULT_PEOPLE_LIMITS, MAX_SESSIONS_PER_USER, type PeopleLimits } from "./limits.js";
export { createLoginLimiter, createStoreLoginLimiter, type LoginLimiter, type LoginLimiterOptions } from "./login-limiter.js";
export { createSmtpMailer, type InviteMail, type InviteMailer, type SmtpSettings } from "./mailer.js";
export { DEFAULT_SCRYPT_PARAMS, hashPassword, MAX_CONCURRENT_HASHES, MAX_QUEUED_HASHES, needsRehash, type ScryptParams, verifyPassword } from "./password.js";
export { assertPasswordPolicy, commonPasswords, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordProblem } from "./policy.js";
export { revokeBeyondRights, type RightsSwept } from "./rights.js";
export { CSRF_HEADER, csrfTokenOf, hashSecret, isWellFormedSecret, newSecret, SESSION_COOKIE, SIGNED_IN_COOKIE } from "./secrets.js";
export { BOOTSTRAP_ORG, createSetupLink, isSetupInvite, SETUP_INVITE_EMAIL, type SetupLink } from "./setup.js";
export { createPeople, type People, type PeopleOptions } from "./people.js";
export { type Actor, audit, type Origin, SYSTEM_ACTOR, userActor } from "./audit.js";
export { organizationsOf, presentInvite, presentMember, presentOrg, presentUser } from "./present.js";
export {
  endSession,
  organizationOf,
  type ResumedSession,
  resumeSession,
  sessionEnded,
  type SessionStart,
  type StartedSession,
  startSession,
  switchOrganization,
} from "./sessions.js";
export { auditFailedSignIn, changePassword, checkPassword, type PasswordChange, type SignIn, signIn } from "./credentials.js";
export { completeSetup, isSetupOpen, type Setup } from "./setup.js";
export {
  acceptInvitation,
  type CreatedInvitation,
  createInvitation,
  type InvitationAcceptance,
  type Inviter,
  listInvitations,
  type NewInvitation,
  revokeInvitation,
  usableInvitation,
} from "./invitations.js";
export { changeMemberRole, deleteOrganization, getMember, type MemberChangeOptions, type OrgCaller, removeMember, transferOwnership, updateOrganization } from "./members.js";
export { type AddedMember, addMember, type NewMember } from "./users.js";
