/**
 * Gogs (/api/v1/external/gogs) and Gitea, its fork (/api/v1/external/gitea):
 * the event is the X-Gogs-Event or X-Gitea-Event header; pushes (the
 * `branches` filter), new branches, pull requests, issues and their
 * comments, and releases, with Zulip's topics and texts. The two differ in
 * a pull request's branches (Gitea's `head.ref` and `base.ref`), who acted
 * (Gitea's `sender`) and in that Gitea names a pull request's assignee.
 */
import type { Wild } from './wild.ts';
import { TOPIC_WITH_BRANCH, TOPIC_WITH_PR_OR_ISSUE_INFO, branchNotifiable, commentAction, issueMessage, pullRequestMessage, pushCommitsMessage, releaseMessage, type CommitData } from './git.ts';
import { BRANCHES_OPTION, eventHeader, jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

/** Gogs's event types, in Zulip's order (what only_events and exclude_events pick from); Zulip lists none for Gitea, whose events filter all the same. */
const EVENT_TYPES = ['issue_comment', 'issues', 'create', 'pull_request', 'push', 'release'] as const;

const repoName = (p: Wild): string => p.at('repository').at('name').str();
const issueUrl = (p: Wild, n: number): string => `${p.at('repository').at('html_url').str()}/issues/${n}`;

function pushBody(p: Wild, branch: string): string {
  const userName = p.at('sender').at('username').str();
  const compareUrl = p.at('compare_url').str();
  p.at('ref').str();
  const commits: CommitData[] = p
    .at('commits')
    .list()
    .map((c) => {
      const author = c.at('author');
      return {
        // The author's user name, or else the first word of their name.
        name: author.at('username').str() || (author.at('name').str().split(/\s+/).filter(Boolean)[0] ?? ''),
        sha: c.at('id').str(),
        url: c.at('url').str(),
        message: c.at('message').str(),
      };
    });
  return pushCommitsMessage(userName, compareUrl, branch, commits);
}

/**
 * A pull request's text; `gitea` reads it as Gitea sends it: the branches
 * from `head` and `base`, the one who acted from `sender`, and the assignee
 * named; Gogs names an assignee only where one is assigned.
 */
function pullRequestBody(p: Wild, includeTitle: boolean, gitea: boolean): string {
  const pr = p.at('pull_request');
  const giteaAssignee = gitea ? pr.at('assignee') : null;
  const merged = pr.at('merged').bool();
  let userName: string;
  let action: string;
  if (merged) {
    userName = pr.at('merged_by').at('username').str();
    action = 'merged';
  } else {
    userName = (gitea ? p.at('sender') : pr.at('user')).at('username').str();
    action = p.at('action').str();
  }
  const url = pr.at('html_url').str();
  const number = pr.at('number').int();
  let targetBranch: string | null = null;
  let baseBranch: string | null = null;
  if (action !== 'edited') {
    if (!gitea) {
      targetBranch = pr.at('head_branch').str();
      baseBranch = pr.at('base_branch').str();
    } else {
      if (pr.has('head')) targetBranch = pr.at('head').at('ref').str();
      if (pr.has('base')) baseBranch = pr.at('base').at('ref').str();
    }
  }
  const title = includeTitle ? pr.at('title').str() : null;
  if (gitea) {
    const assignee = giteaAssignee!.truthy ? giteaAssignee!.at('login').str() : null;
    return pullRequestMessage({ userName, action, url, number, targetBranch, baseBranch, title, assignee, assigneeUpdated: action === 'assigned' ? assignee : null });
  }
  const gogsAssignee = p.at('action').truthy && pr.at('assignee').truthy ? pr.at('assignee').at('login').str() : null;
  return pullRequestMessage({ userName, action, url, number, targetBranch, baseBranch, title, assigneeUpdated: gogsAssignee });
}

function issuesBody(p: Wild, includeTitle: boolean): string {
  const issue = p.at('issue');
  const n = issue.at('number').int();
  const assigneeField = issue.at('assignee');
  const assignee = assigneeField.truthy ? assigneeField.at('login').str() : null;
  const action = p.at('action').str();
  return issueMessage({
    userName: p.at('sender').at('login').str(),
    action,
    url: issueUrl(p, n),
    number: n,
    message: issue.at('body').str(),
    assignee,
    title: includeTitle ? issue.at('title').str() : null,
    assigneeUpdated: action === 'assigned' ? assignee : null,
  });
}

function issueCommentBody(p: Wild, includeTitle: boolean): string {
  // Zulip reads the action, then that the comment and the issue are there, then the comment's link.
  p.at('action').str();
  p.at('comment');
  const issue = p.at('issue');
  const action = commentAction(p);
  const userName = p.at('sender').at('login').str();
  const n = issue.at('number').int();
  return issueMessage({
    userName,
    action,
    url: issueUrl(p, n),
    number: n,
    message: p.at('comment').at('body').str(),
    title: includeTitle ? issue.at('title').str() : null,
  });
}

function gogsLike(name: string, header: string, gitea: boolean): Integration {
  return {
    name,
    ...(gitea ? {} : { eventTypes: EVENT_TYPES }),
    urlOptions: [BRANCHES_OPTION],
    handle(req): WebhookMessage[] {
      const p = jsonPayload(req);
      const repo = repoName(p);
      const event = eventHeader(req, header);
      const includeTitle = req.param('topic') !== undefined;
      let topic: string;
      let body: string;
      // The text first, then the topic: Zulip's order of reading the payload.
      if (event === 'push') {
        const branch = p.at('ref').str().replace(/^refs\/heads\//, '');
        if (!branchNotifiable(branch, req.param('branches'))) return [];
        body = pushBody(p, branch);
        topic = TOPIC_WITH_BRANCH(repo, branch);
      } else if (event === 'create') {
        const branch = p.at('ref').str();
        const url = `${p.at('repository').at('html_url').str()}/src/${branch}`;
        body = `${p.at('sender').at('username').str()} created [${branch}](${url}) branch.`;
        topic = TOPIC_WITH_BRANCH(repo, branch);
      } else if (event === 'pull_request') {
        body = pullRequestBody(p, includeTitle, gitea);
        const pr = p.at('pull_request');
        topic = TOPIC_WITH_PR_OR_ISSUE_INFO(repo, 'PR', pr.at('id').int(), pr.at('title').str());
      } else if (event === 'issues' || event === 'issue_comment') {
        body = event === 'issues' ? issuesBody(p, includeTitle) : issueCommentBody(p, includeTitle);
        const issue = p.at('issue');
        topic = TOPIC_WITH_PR_OR_ISSUE_INFO(repo, 'issue', issue.at('number').int(), issue.at('title').str());
      } else if (event === 'release') {
        const release = p.at('release');
        const author = release.at('author').at('username').str();
        const action = p.at('action').str();
        const tag = release.at('tag_name').str();
        const title = release.at('name').str();
        body = releaseMessage(author, action, tag, title, p.at('repository').at('html_url').str());
        topic = `${repo} / ${tag} ${title}`;
      } else {
        throw unsupportedEvent(name, event);
      }
      return [{ topic, body, eventType: event }];
    },
  };
}

export const gogs = gogsLike('Gogs', 'X-Gogs-Event', false);
export const gitea = gogsLike('Gitea', 'X-Gitea-Event', true);
