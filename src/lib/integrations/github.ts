/**
 * GitHub (/api/v1/external/github) and GitHub Sponsors (/githubsponsors, the
 * same webhook): the event is the X-GitHub-Event header, refined by the
 * payload's action; topics and texts as Zulip writes them. Query parameters:
 * branches (push filter), ignore_private_repositories,
 * include_repository_name (a push names its repository), topic.
 */
import type { Wild } from './wild.ts';
import { badRequest } from '../errors.ts';
import {
  CONTENT_MESSAGE,
  TOPIC_WITH_BRANCH,
  TOPIC_WITH_PR_OR_ISSUE_INFO,
  branchNotifiable,
  commentAction,
  commitsCommentMessage,
  issueMessage,
  pullRequestMessage,
  pushCommitsMessage,
  pushTagMessage,
  releaseMessage,
  setupMessage,
  shortSha,
  type CommitData,
} from './git.ts';
import { BRANCHES_OPTION, boolParam, eventHeader, jsonPayload, unsupportedEvent, type Integration, type UrlOption, type WebhookMessage, type WebhookRequest } from './types.ts';

interface Helper {
  payload: Wild;
  includeTitle: boolean;
  includeRepositoryName?: boolean;
}

const sender = (p: Wild): string => p.at('sender').at('login').str();
const senderUrl = (p: Wild): string => p.at('sender').at('html_url').str();
const repoName = (p: Wild): string => p.at('repository').at('name').str();
const repoFullName = (p: Wild): string => p.at('repository').at('full_name').str();
const repoUrl = (p: Wild): string => p.at('repository').at('html_url').str();
const branchFromRef = (ref: string): string => ref.replace(/^refs\/heads\//, '');
const tagFromRef = (ref: string): string => ref.replace(/^refs\/tags\//, '');

const isPrComment = (p: Wild): boolean => p.at('issue').has('pull_request');

function openedOrUpdatedPr({ payload: p, includeTitle }: Helper): string {
  const pr = p.at('pull_request');
  let action = p.at('action').str();
  if (action === 'synchronize') action = 'updated';
  const assignee = pr.get('assignee').truthy ? pr.at('assignee').at('login').str() : null;
  const changes = p.get('changes', {});
  const description = changes.has('body') || action === 'opened' ? pr.at('body').strOrNull() : null;
  const withBranches = action === 'opened' || action === 'merged';
  return pullRequestMessage({
    userName: sender(p),
    action,
    url: pr.at('html_url').str(),
    targetBranch: withBranches ? pr.at('head').at('label').str() : null,
    baseBranch: withBranches ? pr.at('base').at('label').str() : null,
    message: description,
    assignee,
    number: pr.at('number').int(),
    title: includeTitle ? pr.at('title').str() : null,
  });
}

function assignedPr({ payload: p, includeTitle }: Helper): string {
  const pr = p.at('pull_request');
  return pullRequestMessage({
    userName: sender(p),
    action: p.at('action').str(),
    url: pr.at('html_url').str(),
    number: pr.at('number').int(),
    title: includeTitle ? pr.at('title').str() : null,
    assigneeUpdated: p.at('assignee').at('login').str(),
  });
}

function closedPr({ payload: p, includeTitle }: Helper): string {
  const pr = p.at('pull_request');
  return pullRequestMessage({
    userName: sender(p),
    action: pr.at('merged').bool() ? 'merged' : 'closed without merge',
    url: pr.at('html_url').str(),
    number: pr.at('number').int(),
    title: includeTitle ? pr.at('title').str() : null,
  });
}

function reviewRequestedPr({ payload: p, includeTitle }: Helper): string {
  const pr = p.at('pull_request');
  let reviewers: string;
  if (p.has('requested_reviewer')) {
    const r = p.at('requested_reviewer');
    reviewers = `[${r.at('login').str()}](${r.at('html_url').str()})`;
  } else {
    const team = p.at('requested_team');
    reviewers = `[${team.at('name').str()}](${team.at('html_url').str()})`;
  }
  const title = includeTitle ? ` ${pr.at('title').str()}` : '';
  return `**${sender(p)}** requested ${reviewers} for a review on [PR #${pr.at('number').int()}${title}](${pr.at('html_url').str()}).`;
}

function readyForReviewPr({ payload: p }: Helper): string {
  const pr = p.at('pull_request');
  return `**${sender(p)}** has marked [PR #${pr.at('number').int()}](${pr.at('html_url').str()}) as ready for review.`;
}

function lockedPr({ payload: p }: Helper): string {
  const pr = p.at('pull_request');
  const reason = pr.get('active_lock_reason').truthy ? pr.at('active_lock_reason').str() : 'None';
  const link = `[PR #${pr.at('number').int()}](${pr.at('html_url').str()})`;
  return p.at('action').str() === 'unlocked'
    ? `${sender(p)} has unlocked ${link}.`
    : `${sender(p)} has locked ${link} as ${reason} and limited conversation to collaborators.`;
}

function autoMergePr({ payload: p }: Helper): string {
  const pr = p.at('pull_request');
  const verb = p.at('action').str() === 'auto_merge_disabled' ? 'disabled' : 'enabled';
  return `${sender(p)} has ${verb} auto merge for [PR #${pr.at('number').int()}](${pr.at('html_url').str()}).`;
}

function prReview({ payload: p, includeTitle }: Helper): string {
  const pr = p.at('pull_request');
  return pullRequestMessage({
    userName: sender(p),
    action: 'submitted',
    url: p.at('review').at('html_url').str(),
    type: 'PR review',
    title: includeTitle ? `for #${pr.at('number').int()} ${pr.at('title').str()}` : null,
    message: p.at('review').at('body').strOrNull(),
  });
}

function prReviewComment({ payload: p, includeTitle }: Helper): string {
  const pr = p.at('pull_request');
  const action = p.at('action').str();
  return pullRequestMessage({
    userName: sender(p),
    action,
    url: p.at('comment').at('html_url').str(),
    message: action === 'created' ? p.at('comment').at('body').str() : null,
    type: 'PR review comment',
    title: includeTitle ? `on #${pr.at('number').int()} ${pr.at('title').str()}` : null,
  });
}

function issueBody({ payload: p, includeTitle }: Helper): string {
  const action = p.at('action').str();
  const issue = p.at('issue');
  return issueMessage({
    userName: sender(p),
    action,
    url: issue.at('html_url').str(),
    number: issue.at('number').int(),
    message: action === 'assigned' || action === 'unassigned' ? null : issue.at('body').strOrNull(),
    title: includeTitle ? issue.at('title').str() : null,
    assigneeUpdated: p.has('assignee') ? p.at('assignee').at('login').str() : null,
  });
}

function issueLabeled({ payload: p, includeTitle }: Helper): string {
  const issue = p.at('issue');
  const added = p.at('action').str() === 'labeled';
  const title = includeTitle ? ` ${issue.at('title').str()}` : '';
  return `[${sender(p)}](${senderUrl(p)}) ${added ? 'added' : 'removed'} the ${p.at('label').at('name').str()} label ${added ? 'to' : 'from'} [Issue #${issue.at('number').int()}${title}](${issue.at('html_url').str()}).`;
}

function issueMilestoned({ payload: p, includeTitle }: Helper): string {
  const issue = p.at('issue');
  const added = p.at('action').str() === 'milestoned';
  const title = includeTitle ? ` ${issue.at('title').str()}` : '';
  const m = p.at('milestone');
  return `[${sender(p)}](${senderUrl(p)}) ${added ? 'added' : 'removed'} milestone [${m.at('title').str()}](${m.at('html_url').str()}) ${added ? 'to' : 'from'} [issue #${issue.at('number').int()}${title}](${issue.at('html_url').str()}).`;
}

/** A comment on an issue, a pull request or a discussion (`target`). */
function commentBody(p: Wild, target: Wild, type: string, includeTitle: boolean): string {
  return pullRequestMessage({
    userName: sender(p),
    action: commentAction(p),
    url: target.at('html_url').str(),
    number: target.at('number').int(),
    message: p.at('comment').at('body').str(),
    title: includeTitle ? target.at('title').str() : null,
    type,
  });
}

function issueComment({ payload: p, includeTitle }: Helper): string {
  return commentBody(p, p.at('issue'), isPrComment(p) ? 'PR' : 'issue', includeTitle);
}

function pushCommits({ payload: p, includeRepositoryName }: Helper): string {
  const commits: CommitData[] = p.at('commits').list().map((c) => ({
    name: c.at('author').get('username').truthy ? c.at('author').at('username').str() : c.at('author').at('name').str(),
    sha: c.at('id').str(),
    url: c.at('url').str(),
    message: c.at('message').str(),
  }));
  return pushCommitsMessage(sender(p), p.at('compare').str(), branchFromRef(p.at('ref').str()), commits, {
    deleted: p.at('deleted').bool(),
    forcePush: p.at('forced').bool(),
    repositoryName: includeRepositoryName ? repoFullName(p) : null,
    repositoryUrl: includeRepositoryName ? repoUrl(p) : null,
  });
}

function pushTags({ payload: p }: Helper): string {
  return pushTagMessage(sender(p), tagFromRef(p.at('ref').str()), p.at('created').bool() ? 'pushed' : 'removed');
}

function release({ payload: p }: Helper): string {
  const r = p.at('release');
  const name = r.at('name').truthy ? r.at('name').str() : r.at('tag_name').str();
  return releaseMessage(sender(p), p.at('action').str(), r.at('tag_name').str(), name, r.at('html_url').str());
}

function createOrDelete(action: string) {
  return ({ payload: p }: Helper): string => {
    const refType = p.at('ref_type').str();
    return `${sender(p)} ${action} ${refType} ${p.at('ref').str()}.`.trimEnd();
  };
}

function commitComment({ payload: p }: Helper): string {
  const comment = p.at('comment');
  const url = comment.at('html_url').str();
  return commitsCommentMessage(sender(p), `[commented](${url})`, url.split('#')[0], comment.at('commit_id').str(), comment.at('body').str());
}

function checkRun({ payload: p }: Helper): string {
  const run = p.at('check_run');
  const name = run.at('name').str();
  const url = run.at('html_url').str();
  const status = run.at('status').str();
  const headSha = run.at('head_sha').str();
  const commitUrl = `${repoUrl(p)}/commit/${headSha}`;
  const conclusion = run.at('conclusion').str();
  return `Check [${name}](${url}) ${status} (${conclusion}). ([${shortSha(headSha)}](${commitUrl}))`;
}

function membership({ payload: p }: Helper): string {
  const action = p.at('action').str();
  const member = p.at('member');
  const team = p.at('team').at('name').str();
  return `${sender(p)} ${action} [${member.at('login').str()}](${member.at('html_url').str()}) ${action === 'removed' ? 'from' : 'to'} the ${team} team.`;
}

function wikiPages({ payload: p }: Helper): string {
  let info = '';
  for (const page of p.at('pages').list()) {
    info += `* ${page.at('action').str()} [${page.at('title').str()}](${page.at('html_url').str()})\n`;
  }
  return `${sender(p)}:\n${info.trimEnd()}`;
}

/** Python's order of strings (by code point). */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function team({ payload: p }: Helper): string {
  const changes = p.at('changes');
  if (changes.has('description')) {
    return `**${sender(p)}** changed the team description to:\n\n~~~ quote\n${p.at('team').at('description').str()}\n~~~`;
  }
  if (changes.has('name')) return `Team \`${changes.at('name').at('from').str()}\` was renamed to \`${p.at('team').at('name').str()}\`.`;
  if (changes.has('privacy')) return `Team visibility changed to \`${p.at('team').at('privacy').str()}\``;
  // Something else changed: at least say what, so that one can look on GitHub.
  return `Team has changes to \`${changes.keys().sort(byCodePoint).join('/')}\` data.`;
}

const PAGE_BUILD_ACTIONS: Record<string, string> = {
  null: 'has yet to be built',
  building: 'is being built',
  errored: 'has failed: {}',
  built: 'has finished building',
};

function pageBuild({ payload: p }: Helper): string {
  const build = p.at('build');
  const status = build.at('status').str();
  let action = Object.prototype.hasOwnProperty.call(PAGE_BUILD_ACTIONS, status) ? PAGE_BUILD_ACTIONS[status] : `is ${status}`;
  const error = build.at('error').at('message');
  if (error.truthy) action = action.replace('{}', () => CONTENT_MESSAGE(error.str()));
  return `GitHub Pages build, triggered by ${build.at('pusher').at('login').str()}, ${action}.`;
}

function issueTransferred({ payload: p }: Helper): string {
  const issue = p.at('issue');
  const changes = p.at('changes');
  const n = issue.at('number').int();
  const url = issue.at('html_url').str();
  const title = issue.at('title').str();
  const newRepo = changes.at('new_repository').at('full_name').str();
  const newIssue = changes.at('new_issue');
  return `${sender(p)} transferred [issue #${n} ${title}](${url}) to [${newRepo}/#${newIssue.at('number').int()}](${newIssue.at('html_url').str()}).`;
}

function issueOpenedViaTransfer({ payload: p }: Helper): string {
  const issue = p.at('issue');
  const changes = p.at('changes');
  const n = issue.at('number').int();
  const url = issue.at('html_url').str();
  const title = issue.at('title').str();
  const oldRepo = changes.at('old_repository').at('full_name').str();
  const oldIssue = changes.at('old_issue');
  return `[Issue #${n} ${title}](${url}) was transferred from [${oldRepo}#${oldIssue.at('number').int()}](${oldIssue.at('html_url').str()}).`;
}

// GitHub Discussions: one text per action; the title is named where the topic is the URL's own.

function discussionAction(p: Wild): string {
  const action = p.at('action').str();
  if (action === 'unlocked' || action === 'pinned' || action === 'unpinned' || action === 'reopened') return 'generic_action';
  if (action === 'edited') return p.at('changes').has('body') ? 'edited_body' : 'edited_title';
  return action;
}

function discussion({ payload: p, includeTitle }: Helper): string {
  const d = (): Wild => p.at('discussion');
  const who = (): string => sender(p);
  const link = (): string => `[discussion #${d().at('number').int()}${includeTitle ? ` ${d().at('title').str()}` : ''}](${d().at('html_url').str()})`;
  const configuredTitle = (): string => (includeTitle ? ` ${d().at('title').str()}` : '');
  const answer = (field: string): Wild => p.at(field);
  switch (discussionAction(p)) {
    case 'created':
      return `${who()} created [discussion #${d().at('number').int()}](${d().at('html_url').str()}) in ${d().at('category').at('name').str()}:\n\n~~~ quote\n### ${d().at('title').str()}\n${d().at('body').str()}\n~~~`;
    case 'generic_action':
      return `${who()} ${p.at('action').str()} ${link()}.`;
    case 'deleted':
      return `${who()} ${p.at('action').str()} discussion #${d().at('number').int()}${configuredTitle()}.`;
    case 'closed':
      return `${who()} ${p.at('action').str()} ${link()} as ${d().at('state_reason').str()}.`;
    case 'locked': {
      const reason = d().at('active_lock_reason');
      // The title, when named, follows the URL too, as GitHub's own integration in Zulip writes it.
      const head = `${who()} ${p.at('action').str()} [discussion #${d().at('number').int()}${configuredTitle()}](${d().at('html_url').str()}${configuredTitle()})`;
      return `${head}${reason.truthy ? ` as ${reason.str()}` : ''}.`;
    }
    case 'labeled':
      return `${who()} added the ${p.at('label').at('name').str()} label to ${link()}.`;
    case 'unlabeled':
      return `${who()} removed the ${p.at('label').at('name').str()} label from ${link()}.`;
    case 'category_changed':
      return `${who()} changed the category of ${link()} from ${p.at('changes').at('category').at('from').at('name').str()} to ${d().at('category').at('name').str()}.`;
    case 'transferred': {
      const changes = p.at('changes');
      return `${who()} ${p.at('action').str()} discussion #${d().at('number').int()}${configuredTitle()} from ${p.at('repository').at('name').str()} to ${changes.at('new_repository').at('name').str()} as [discussion #${changes.at('new_discussion').at('number').int()}](${d().at('html_url').str()}).`;
    }
    case 'answered': {
      const a = answer('answer');
      return `${who()} marked [comment #${a.at('id').int()}](${a.at('html_url').str()}) as the answer:\n\n~~~ quote\n${a.at('body').str()}\n~~~`;
    }
    case 'unanswered': {
      const a = answer('old_answer');
      return `${who()} marked [comment #${a.at('id').int()}](${a.at('html_url').str()}) as not the answer.`;
    }
    case 'edited_title':
      return `${who()} edited the title of ${link()}:\n\n~~~ quote\n### ${d().at('title').str()}\n~~~`;
    case 'edited_body':
      return `${who()} edited ${link()}:\n\n~~~ quote\n${d().at('body').str()}\n~~~`;
    default:
      throw badRequest(`Unknown discussion action: ${p.at('action').str()}`);
  }
}

function discussionComment({ payload: p, includeTitle }: Helper): string {
  return commentBody(p, p.at('discussion'), 'discussion', includeTitle);
}

// GitHub Sponsors.

const tierName = (p: Wild): string => p.at('sponsorship').at('tier').at('name').str();
const priorTierName = (p: Wild): string => p.at('changes').at('tier').at('from').at('name').str();
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The day of `effective_date` (its first ten characters, an ISO date), as "January 05, 2020". */
function effectiveDate(p: Wild): string {
  const w = p.at('effective_date');
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(w.str().slice(0, 10));
  const date = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!m || !date || date.getUTCMonth() !== Number(m[2]) - 1 || date.getUTCDate() !== Number(m[3]) || Number(m[1]) < 1) {
    throw badRequest(`${w.name} is not a valid ISO date`);
  }
  return `${MONTHS[date.getUTCMonth()]} ${m[3]}, ${m[1]}`;
}

const EVENTS: Record<string, (h: Helper) => string> = {
  commit_comment: commitComment,
  closed_pull_request: closedPr,
  create: createOrDelete('created'),
  check_run: checkRun,
  delete: createOrDelete('deleted'),
  deployment: ({ payload: p }) => `${sender(p)} created new deployment.`,
  deployment_status: ({ payload: p }) => `Deployment changed status to ${p.at('deployment_status').at('state').str()}.`,
  discussion,
  discussion_comment: discussionComment,
  fork: ({ payload: p }) => `${sender(p)} forked [${p.at('forkee').at('name').str()}](${p.at('forkee').at('html_url').str()}).`,
  gollum: wikiPages,
  issue_comment: issueComment,
  issue_labeled_or_unlabeled: issueLabeled,
  issue_milestoned_or_demilestoned: issueMilestoned,
  issues_opened_via_transfer: issueOpenedViaTransfer,
  issues_transferred: issueTransferred,
  issues: issueBody,
  member: ({ payload: p }) =>
    `${sender(p)} ${p.at('action').str()} [${p.at('member').at('login').str()}](${p.at('member').at('html_url').str()}) to [${repoName(p)}](${repoUrl(p)}).`,
  membership,
  opened_pull_request: openedOrUpdatedPr,
  updated_pull_request: openedOrUpdatedPr,
  assigned_or_unassigned_pull_request: assignedPr,
  page_build: pageBuild,
  ping: ({ payload: p }) => setupMessage('GitHub', sender(p)),
  public: ({ payload: p }) => `${sender(p)} made the repository [${repoFullName(p)}](${repoUrl(p)}) public.`,
  pull_request_ready_for_review: readyForReviewPr,
  pull_request_review: prReview,
  pull_request_review_comment: prReviewComment,
  pull_request_review_requested: reviewRequestedPr,
  pull_request_auto_merge: autoMergePr,
  locked_or_unlocked_pull_request: lockedPr,
  push_commits: pushCommits,
  push_tags: pushTags,
  release,
  repository: ({ payload: p }) => `${sender(p)} ${p.at('action').str()} the repository [${repoFullName(p)}](${repoUrl(p)}).`,
  star: ({ payload: p }) => `[${sender(p)}](${senderUrl(p)}) ${p.at('action').str() === 'created' ? 'starred' : 'unstarred'} the repository [${repoFullName(p)}](${repoUrl(p)}).`,
  status: ({ payload: p }) => {
    const state = p.at('state').str();
    const status = p.at('target_url').truthy ? `[${state}](${p.at('target_url').str()})` : state;
    return `[${shortSha(p.at('sha').str())}](${p.at('commit').at('html_url').str()}) changed its status to ${status}.`;
  },
  team,
  team_add: ({ payload: p }) => `The repository [${repoFullName(p)}](${repoUrl(p)}) was added to team ${p.at('team').at('name').str()}.`,
  watch: ({ payload: p }) => `${sender(p)} starred the repository [${repoFullName(p)}](${repoUrl(p)}).`,
  cancelled: ({ payload: p }) => `${sender(p)} cancelled their ${tierName(p)} subscription.`.trimEnd(),
  created: ({ payload: p }) => `${sender(p)} subscribed for ${tierName(p)}.`.trimEnd(),
  edited: ({ payload: p }) =>
    `${sender(p)} changed who can see their sponsorship from ${p.at('changes').at('privacy_level').at('from').str()} to ${p.at('sponsorship').at('privacy_level').str()}.`.trimEnd(),
  pending_cancellation: ({ payload: p }) => `${sender(p)}'s ${tierName(p)} subscription will be cancelled on ${effectiveDate(p)}.`.trimEnd(),
  pending_tier_change: ({ payload: p }) =>
    `${sender(p)}'s subscription will change from ${priorTierName(p)} to ${tierName(p)} on ${effectiveDate(p)}.`.trimEnd(),
  tier_changed: ({ payload: p }) => `${sender(p)} changed their subscription from ${priorTierName(p)} to ${tierName(p)}.`.trimEnd(),
};

/** GitHub Sponsors' events (the githubsponsors URL's event types; its topic is "sponsors"). */
const SPONSORS_EVENT_TYPES = ['cancelled', 'created', 'edited', 'pending_cancellation', 'pending_tier_change', 'tier_changed'];

const IGNORED_EVENTS = new Set(['check_suite', 'label', 'meta', 'milestone', 'organization', 'project_card', 'push__merge_queue', 'repository_vulnerability_alert']);
const IGNORED_PULL_REQUEST_ACTIONS = new Set(['approved', 'converted_to_draft', 'labeled', 'review_request_removed', 'unlabeled']);
/** Team actions GitHub documents that are not told (team_add tells of a repository added to a team). */
const IGNORED_TEAM_ACTIONS = new Set(['added_to_repository', 'created', 'deleted', 'removed_from_repository']);

function zulipEventName(header: string, p: Wild, branches: string | undefined): string | null {
  if (header === 'pull_request') {
    const action = p.at('action').str();
    if (action === 'opened' || action === 'reopened') return 'opened_pull_request';
    if (action === 'synchronize' || action === 'edited') return 'updated_pull_request';
    if (action === 'assigned' || action === 'unassigned') return 'assigned_or_unassigned_pull_request';
    if (action === 'closed') return 'closed_pull_request';
    if (action === 'review_requested') return 'pull_request_review_requested';
    if (action === 'ready_for_review') return 'pull_request_ready_for_review';
    if (action === 'locked' || action === 'unlocked') return 'locked_or_unlocked_pull_request';
    if (action === 'auto_merge_enabled' || action === 'auto_merge_disabled') return 'pull_request_auto_merge';
    if (IGNORED_PULL_REQUEST_ACTIONS.has(action)) return null;
  } else if (header === 'pull_request_review') {
    // GitHub follows a submitted review with an "edited" event that changes nothing.
    if (p.at('action').str() === 'edited' && p.get('changes', {}).length() === 0) return null;
    return 'pull_request_review';
  } else if (header === 'push') {
    const ref = p.at('ref').str();
    if (ref.startsWith('refs/heads/gh-readonly-queue/')) return null;
    if (ref.startsWith('refs/heads/')) {
      if (!branchNotifiable(branchFromRef(ref), branches)) return null;
      return 'push_commits';
    }
    return 'push_tags';
  } else if (header === 'check_run') {
    if (p.at('check_run').at('status').str() !== 'completed') return null;
    return header;
  } else if (header === 'team') {
    const action = p.at('action').str();
    if (action === 'edited') return 'team';
    if (IGNORED_TEAM_ACTIONS.has(action)) return null;
    throw unsupportedEvent('GitHub', `unsupported team action ${action}`);
  } else if (header === 'issues') {
    const action = p.at('action').str();
    if (action === 'labeled' || action === 'unlabeled') return 'issue_labeled_or_unlabeled';
    if (action === 'milestoned' || action === 'demilestoned') return 'issue_milestoned_or_demilestoned';
    if (action === 'transferred') return 'issues_transferred';
    if (action === 'opened' && p.get('changes', {}).get('old_issue').truthy) return 'issues_opened_via_transfer';
    return 'issues';
  } else if (Object.prototype.hasOwnProperty.call(EVENTS, header)) {
    return header;
  } else if (IGNORED_EVENTS.has(header)) {
    return null;
  }
  throw unsupportedEvent('GitHub', `${header}:${p.get('action', '???').str()}`);
}

function topicFor(p: Wild, event: string): string {
  if (event.includes('pull_request')) {
    const pr = p.at('pull_request');
    return TOPIC_WITH_PR_OR_ISSUE_INFO(repoName(p), 'PR', pr.at('number').int(), pr.at('title').str());
  }
  if (event.startsWith('issue')) {
    const issue = p.at('issue');
    return TOPIC_WITH_PR_OR_ISSUE_INFO(repoName(p), isPrComment(p) ? 'PR' : 'issue', issue.at('number').int(), issue.at('title').str());
  }
  if (event.startsWith('deployment')) return `${repoName(p)} / Deployment on ${p.at('deployment').at('environment').str()}`;
  if (event === 'membership') return `${p.at('organization').at('login').str()} organization`;
  if (event === 'team') return `team ${p.at('team').at('name').str()}`;
  if (event === 'push_commits') return TOPIC_WITH_BRANCH(repoName(p), branchFromRef(p.at('ref').str()));
  if (event === 'gollum') return TOPIC_WITH_BRANCH(repoName(p), 'wiki pages');
  if (event === 'ping') {
    if (!p.get('repository').truthy) return p.at('organization').at('login').str();
  } else if (event === 'check_run') return `${repoName(p)} / checks`;
  else if (event.startsWith('discussion')) {
    const d = p.at('discussion');
    return `${repoName(p)} discussion #${d.at('number').int()}: ${d.at('title').str()}`;
  } else if (SPONSORS_EVENT_TYPES.includes(event)) return 'sponsors';
  return repoName(p);
}

function handle(req: WebhookRequest): WebhookMessage[] {
  const p = jsonPayload(req);
  const ignorePrivate = boolParam(req, 'ignore_private_repositories', false);
  const includeRepositoryName = boolParam(req, 'include_repository_name', false);
  const header = eventHeader(req, 'X-GitHub-Event');
  if (p.has('repository') && p.at('repository').at('private').bool() && ignorePrivate) return [];
  // An edited comment whose text did not change is not news (a discussion's comment always is).
  if (
    header.includes('comment') &&
    !header.includes('discussion') &&
    p.get('action', '').str() === 'edited' &&
    p.at('changes').at('body').at('from').str() === p.at('comment').at('body').str()
  ) {
    return [];
  }
  const event = zulipEventName(header, p, req.param('branches'));
  if (event === null) return [];
  const topic = topicFor(p, event);
  const body = EVENTS[event]({ payload: p, includeTitle: req.param('topic') !== undefined, includeRepositoryName });
  return [{ topic, body, eventType: event }];
}

const INCLUDE_REPOSITORY_NAME: UrlOption = { key: 'include_repository_name', label: 'Include repository name in the notifications', validator: 'check_bool' };

export const github: Integration = {
  name: 'GitHub',
  eventTypes: Object.keys(EVENTS),
  urlOptions: [BRANCHES_OPTION, { key: 'ignore_private_repositories', label: 'Exclude notifications from private repositories', validator: 'check_bool' }, INCLUDE_REPOSITORY_NAME],
  handle,
};

/** GitHub Sponsors (/api/v1/external/githubsponsors): GitHub's webhook, listed with the Sponsors events. */
export const githubsponsors: Integration = {
  name: 'GitHub',
  displayName: 'GitHub Sponsors',
  eventTypes: SPONSORS_EVENT_TYPES,
  handle,
};
