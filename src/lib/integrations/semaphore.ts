/**
 * Semaphore (/api/v1/external/semaphore): Semaphore Classic's builds and
 * deploys (a payload with `event`), and Semaphore 2.0's pipelines for a
 * push, a pull request or a tag (`revision.reference_type`, the event
 * type), linked to the commit, pull request, tag and author on GitHub when
 * the repository is there. Topic: `<project>/<branch>`, or the project.
 */
import { shortSha } from './git.ts';
import type { Wild } from './wild.ts';
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';

const EVENT_TYPES = ['build', 'tag', 'unknown', 'branch', 'deploy', 'pull_request'] as const;

/** The first line of a text, as Python's splitlines() cuts it. */
const summaryLine = (message: string): string => message.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/)[0]!;

function isGitHub(url: string): boolean {
  try {
    return new URL(url).hostname === 'github.com';
  } catch {
    return false;
  }
}

function classic(p: Wild): [string, string, string, string] {
  const branch = p.at('branch_name').str();
  const project = p.at('project_name').str();
  const result = p.at('result').str();
  const event = p.at('event').str();
  const commit = p.at('commit');
  const sha = commit.at('id').str();
  const commitLine = `* **Commit**: [${shortSha(sha)}: ${summaryLine(commit.at('message').str())}](${commit.at('url').str()})`;
  const author = `* **Author**: ${commit.at('author_email').str()}`;
  let content: string;
  if (event === 'build') {
    content = `[Build ${p.at('build_number').int()}](${p.at('build_url').str()}) ${result}:\n${commitLine}\n${author}`;
  } else if (event === 'deploy') {
    const build = `[build ${p.at('build_number').int()}](${p.at('build_html_url').str()})`;
    content = `[Deploy ${p.at('number').int()}](${p.at('html_url').str()}) of ${build} ${result}:\n${commitLine}\n${author}\n* **Server**: ${p.at('server_name').str()}`;
  } else {
    content = `${event}: ${result}`;
  }
  return [content, project, branch, event];
}

function semaphore2(p: Wild): [string, string, string, string] {
  const repoUrl = p.at('repository').at('url').str();
  const project = p.at('project').at('name').str();
  const organization = p.at('organization').at('name').str();
  const revision = p.at('revision');
  const login = revision.at('sender').at('login').str();
  const workflowId = p.at('workflow').at('id').str();
  const pipeline = p.at('pipeline');
  const head = `[${pipeline.at('name').str()}](https://${organization}.semaphoreci.com/workflows/${workflowId}) pipeline **${pipeline.at('result').str()}**`;
  const github = isGitHub(repoUrl);
  const author = `* **Author**: ${github ? `[${login}](https://github.com/${login})` : login}`;
  const event = revision.at('reference_type').str();
  if (event === 'branch') {
    const sha = revision.at('commit_sha').str();
    const branch = revision.at('branch').at('name').str();
    const message = summaryLine(revision.at('commit_message').str());
    const commit = github ? `[(${shortSha(sha)})](${repoUrl}/commit/${sha}) ${message}` : `(${shortSha(sha)}) ${message}`;
    return [`${head}:\n* **Commit**: ${commit}\n* **Branch**: ${branch}\n${author}`, project, branch, event];
  }
  if (event === 'pull_request') {
    const pr = revision.at('pull_request');
    const branch = pr.at('branch_name').str();
    const title = pr.at('name').str();
    const number = pr.at('number').str();
    const line = github ? `[${title}](${repoUrl}/pull/${number})` : `${title} (#${number})`;
    return [`${head}:\n* **Pull request**: ${line}\n* **Branch**: ${branch}\n${author}`, project, branch, event];
  }
  if (event === 'tag') {
    const tag = revision.at('tag').at('name').str();
    const line = github ? `[${tag}](${repoUrl}/tree/${tag})` : tag;
    return [`${head}:\n* **Tag**: ${line}\n${author}`, project, '', event];
  }
  return [`${head} for ${event} event`, project, '', event];
}

export const semaphore: Integration = {
  name: 'Semaphore',
  eventTypes: EVENT_TYPES,
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const [body, project, branch, eventType] = p.has('event') ? classic(p) : semaphore2(p);
    return [{ topic: branch ? `${project}/${branch}` : project, body, eventType }];
  },
};
