/**
 * Message texts shared by the Git hosting integrations (GitHub, GitLab, Gogs, Gitea), in
 * Zulip's wording: pushes, tags, pull/merge requests, issues, comments and
 * releases.
 */
import type { Wild } from './wild.ts';
import { endsWithPunctuation } from './python-text.ts';

export const TOPIC_WITH_BRANCH = (repo: string, branch: string): string => `${repo} / ${branch}`;
export const TOPIC_WITH_PR_OR_ISSUE_INFO = (repo: string, type: string, id: number, title: string): string => `${repo} / ${type} #${id} ${title}`;
export const EMPTY_SHA = '0000000000000000000000000000000000000000';
export const CONTENT_MESSAGE = (message: string): string => `\n~~~ quote\n${message}\n~~~`;

const COMMITS_LIMIT = 20;
const PUSH_COMMITTERS_LIMIT = 3;

export function shortSha(sha: string): string {
  return sha.slice(0, 11);
}

export interface CommitData {
  name: string;
  sha: string;
  url: string | null;
  message: string;
}

function allCommitters(commits: CommitData[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const c of commits) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  let items = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  if (items.length > PUSH_COMMITTERS_LIMIT) {
    const others = items.slice(PUSH_COMMITTERS_LIMIT).reduce((s, [, n]) => s + n, 0);
    items = [...items.slice(0, PUSH_COMMITTERS_LIMIT), ['others', others]];
  }
  return items;
}

function commitsContent(commits: CommitData[], isTruncated = false): string {
  let out = '';
  for (const c of commits.slice(0, COMMITS_LIMIT)) {
    out += `* ${c.message.split('\n')[0]} ([${shortSha(c.sha)}](${c.url ?? 'None'}))\n`;
  }
  if (commits.length > COMMITS_LIMIT) out += `[and ${commits.length - COMMITS_LIMIT} more commit(s)]`;
  else if (isTruncated) out += '[and more commit(s)]';
  return out.trimEnd();
}

export function pushCommitsMessage(
  userName: string,
  compareUrl: string | null,
  branch: string,
  commits: CommitData[],
  opts: { deleted?: boolean; forcePush?: boolean; isTruncated?: boolean; repositoryName?: string | null; repositoryUrl?: string | null } = {},
): string {
  if (commits.length === 0 && opts.deleted) return `${userName} [deleted](${compareUrl}) the branch ${branch}.`;
  const pushType = opts.forcePush ? 'force pushed' : 'pushed';
  if (commits.length === 0) {
    return compareUrl ? `${userName} [${pushType}](${compareUrl}) the branch ${branch}.` : `${userName} ${pushType} the branch ${branch}.`;
  }
  const n = commits.length;
  const what = `${n} commit${n > 1 ? 's' : ''}`;
  const pushed = compareUrl ? `[${pushType}](${compareUrl}) ${what}` : `${pushType} ${what}`;
  // With the repository named (both its name and URL given): "... to branch main of [org/repo](url)."
  const where = opts.repositoryName && opts.repositoryUrl ? ` of [${opts.repositoryName}](${opts.repositoryUrl})` : '';
  const base = `${userName} ${pushed} to branch ${branch}${where}.`;
  const committers = allCommitters(commits);
  const content = commitsContent(commits, opts.isTruncated);
  if (committers.length === 1 && committers[0][0] === userName) return `${base}\n\n${content}\n`.trimEnd();
  let details = `${committers[0][0]} (${committers[0][1]})`;
  for (const [name, count] of committers.slice(1, -1)) details = `${details}, ${name} (${count})`;
  if (committers.length > 1) {
    const [name, count] = committers[committers.length - 1];
    details = `${details} and ${name} (${count})`;
  }
  return `${base} Commits by ${details}.\n\n${content}\n`.trimEnd();
}

export function removeBranchMessage(userName: string, branch: string): string {
  return `${userName} deleted branch ${branch}.`;
}

export function pushTagMessage(userName: string, tag: string, action = 'pushed', tagUrl?: string): string {
  const part = tagUrl ? `[${tag}](${tagUrl})` : tag;
  const msg = `${userName} ${action} tag ${part}`;
  return endsWithPunctuation(tag) ? msg : `${msg}.`;
}

export interface PrMessageArgs {
  userName: string;
  action: string;
  url: string;
  number?: number | null;
  targetBranch?: string | null;
  baseBranch?: string | null;
  message?: string | null;
  assignee?: string | null;
  assignees?: string[] | null;
  assigneeUpdated?: string | null;
  reviewer?: string | null;
  type?: string;
  title?: string | null;
}

function assigneeString(names: string[]): string {
  return names.length === 1 ? names[0] : names.slice(0, -1).join(', ') + ' and ' + names[names.length - 1];
}

export function pullRequestMessage(a: PrMessageArgs): string {
  const actions: Record<string, string> = { approval: 'added their approval for', unapproval: 'removed their approval for' };
  const type = a.type ?? 'PR';
  const id = a.number !== undefined && a.number !== null ? ` #${a.number}` : '';
  const title = a.title !== undefined && a.title !== null ? ` ${a.title}` : '';
  // Python's format of a missing assignee: "X unassigned None from [issue #3](...)", as Zulip writes it.
  const updated = a.assigneeUpdated ?? 'None';
  const assigneePart = a.action === 'assigned' ? ` ${updated} to` : a.action === 'unassigned' ? ` ${updated} from` : '';
  let main = `${a.userName} ${actions[a.action] ?? a.action}${assigneePart} [${type}${id}${title}](${a.url})`;
  const branches = !!(a.targetBranch && a.baseBranch);
  if (branches) main = `${main} from \`${a.targetBranch}\` to \`${a.baseBranch}\``;
  const hasAssignees = !!(a.assignees && a.assignees.length);
  let info: string | null = null;
  if (hasAssignees) info = `(assigned to ${assigneeString(a.assignees!)})`;
  else if (a.assignee) info = `(assigned to ${a.assignee})`;
  else if (a.reviewer) info = `(assigned reviewers: ${a.reviewer})`;
  if (info) main = `${main} ${info}`;
  const punctuation = a.message ? ':' : '.';
  if (hasAssignees || a.assignee || branches || a.title === undefined || a.title === null || !endsWithPunctuation(a.title)) {
    main = `${main}${punctuation}`;
  }
  if (a.message) main += '\n' + CONTENT_MESSAGE(a.message);
  return main.trimEnd();
}

export function issueMessage(a: Omit<PrMessageArgs, 'type' | 'targetBranch' | 'baseBranch' | 'reviewer'>): string {
  return pullRequestMessage({ ...a, type: 'issue' });
}

export function commitsCommentMessage(userName: string, action: string, commitUrl: string, sha: string, message: string | null): string {
  let content = `${userName} ${action} on [${shortSha(sha)}](${commitUrl})${message ? ':' : '.'}`;
  if (message) content += CONTENT_MESSAGE(message);
  return content;
}

export function releaseMessage(userName: string, action: string, tagname: string, releaseName: string, url: string): string {
  return `${userName} ${action} release [${releaseName}](${url}) for tag ${tagname}.`;
}

export function setupMessage(integration: string, userName?: string | null): string {
  return `${integration} webhook has been successfully configured${userName ? ` by ${userName}` : ''}.`;
}

/** Whether a pushed branch is among the `branches` filter (comma-separated), when one is given. */
export function branchNotifiable(branch: string, branches: string | undefined): boolean {
  return branches === undefined || branches.split(',').some((b) => b.trim() === branch);
}

/** A comment's action on an issue or pull request, linked to the comment: "[commented](url) on", "edited a [comment](url) on". */
export function commentAction(p: Wild): string {
  const action = p.at('action').str();
  return `${action === 'created' ? '[commented]' : `${action} a [comment]`}(${p.at('comment').at('html_url').str()}) on`;
}
