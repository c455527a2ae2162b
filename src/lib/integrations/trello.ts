/**
 * Trello (/api/v1/external/trello): card actions (created, moved, renamed,
 * described, due dates, archived and reopened, labels, members, attachments,
 * checklists and their items, comments) and board actions (members, lists,
 * renamed), with Zulip's texts; topic: the board's name. Trello checks the
 * URL with a HEAD request first, answered with success.
 */
import type { Wild } from './wild.ts';
import { isoGlobalTime, jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

const NAME = 'Trello';

const SUPPORTED_CARD_ACTIONS = [
  'updateCard',
  'createCard',
  'addLabelToCard',
  'removeLabelFromCard',
  'addMemberToCard',
  'removeMemberFromCard',
  'addAttachmentToCard',
  'addChecklistToCard',
  'commentCard',
  'updateCheckItemStateOnCard',
];
const IGNORED_CARD_ACTIONS = ['copyCard', 'createCheckItem', 'updateCheckItem', 'updateList'];
const SUPPORTED_BOARD_ACTIONS = ['removeMemberFromBoard', 'addMemberToBoard', 'createList', 'updateBoard'];
/** Card changes that are not told (a card moved within its list, its cover, ...). */
const IGNORED_CARD_FIELDS = ['cover', 'dueComplete', 'idAttachmentCover', 'pos'];

// Each text reads the payload in Zulip's order (its values, then the card's link), so that a payload
// missing several fields is refused naming the same one.
const data = (p: Wild): Wild => p.at('action').at('data');
const cardLink = (p: Wild): string => `[${data(p).at('card').at('name').str()}](https://trello.com/c/${data(p).at('card').at('shortLink').str()})`;
const boardLink = (p: Wild): string => `[${data(p).at('board').at('name').str()}](https://trello.com/b/${data(p).at('board').at('shortLink').str()})`;

/** What an updateCard action did, or null where it is not told; Zulip's checks in its order. */
function cardUpdate(p: Wild): string | null {
  const d = data(p);
  const old = d.at('old');
  const card = d.at('card');
  if (d.get('listBefore').truthy) return 'changeList';
  if (old.get('name').strOrNull()) return 'changeName';
  if (old.get('desc').strOrNull() === '') return 'setDesc';
  if (old.get('desc').strOrNull()) return card.get('desc').strOrNull() === '' ? 'removeDesc' : 'changeDesc';
  if (old.get('due', '').strOrNull() === null) return 'setDueDate';
  if (old.get('due').strOrNull()) return card.get('due', '').strOrNull() === null ? 'removeDueDate' : 'changeDueDate';
  const wasClosed = old.get('closed');
  if (!wasClosed.isNull && wasClosed.bool() === false && card.get('closed', false).bool()) return 'archiveCard';
  const isClosed = card.get('closed');
  if (!wasClosed.isNull && wasClosed.bool() && !isClosed.isNull && isClosed.bool() === false) return 'reopenCard';
  if (IGNORED_CARD_FIELDS.some((f) => old.has(f))) return null;
  throw unsupportedEvent(NAME, 'updateCard');
}

const CARD_TEXTS: Record<string, (p: Wild) => string> = {
  createCard: (p) => `created ${cardLink(p)}.`,
  changeList: (p) => {
    data(p).at('card').at('name').str();
    const [before, after] = [data(p).at('listBefore').at('name').str(), data(p).at('listAfter').at('name').str()];
    return `moved ${cardLink(p)} from ${before} to ${after}.`;
  },
  changeName: (p) => `renamed the card from "${data(p).at('old').at('name').str()}" to ${cardLink(p)}.`,
  setDesc: (p) => {
    const desc = data(p).at('card').at('desc').str();
    return `set description for ${cardLink(p)} to:\n~~~ quote\n${desc}\n~~~\n`;
  },
  changeDesc: (p) => {
    const [desc, oldDesc] = [data(p).at('card').at('desc').str(), data(p).at('old').at('desc').str()];
    return `changed description for ${cardLink(p)} from\n~~~ quote\n${oldDesc}\n~~~\nto\n~~~ quote\n${desc}\n~~~\n`;
  },
  removeDesc: (p) => `removed description from ${cardLink(p)}.`,
  archiveCard: (p) => `archived ${cardLink(p)}.`,
  reopenCard: (p) => `reopened ${cardLink(p)}.`,
  setDueDate: (p) => {
    const due = isoGlobalTime(data(p).at('card').at('due'));
    return `set due date for ${cardLink(p)} to ${due}.`;
  },
  changeDueDate: (p) => {
    const [due, oldDue] = [isoGlobalTime(data(p).at('card').at('due')), isoGlobalTime(data(p).at('old').at('due'))];
    return `changed due date for ${cardLink(p)} from ${oldDue} to ${due}.`;
  },
  removeDueDate: (p) => `removed the due date from ${cardLink(p)}.`,
  addLabelToCard: (p) => `added a ${data(p).at('value').str()} label with "${data(p).at('text').str()}" to ${cardLink(p)}.`,
  removeLabelFromCard: (p) => `removed a ${data(p).at('value').str()} label with "${data(p).at('text').str()}" from ${cardLink(p)}.`,
  addMemberToCard: (p) => `added ${p.at('action').at('member').at('fullName').str()} to ${cardLink(p)}.`,
  removeMemberFromCard: (p) => `removed ${p.at('action').at('member').at('fullName').str()} from ${cardLink(p)}.`,
  addAttachmentToCard: (p) => {
    const a = data(p).at('attachment');
    const [url, name] = [a.at('url').str(), a.at('name').str()];
    return `added [${name}](${url}) to ${cardLink(p)}.`;
  },
  addChecklistToCard: (p) => `added the ${data(p).at('checklist').at('name').str()} checklist to ${cardLink(p)}.`,
  commentCard: (p) => {
    const text = data(p).at('text').str();
    return `commented on ${cardLink(p)}:\n~~~ quote\n${text}\n~~~\n`;
  },
  updateCheckItemStateOnCard: (p) => {
    const item = data(p).at('checkItem');
    const done = item.at('state').str() === 'complete' ? 'checked' : 'unchecked';
    const [list, name] = [data(p).at('checklist').at('name').str(), item.at('name').str()];
    return `${done} **${name}** in **${list}** (${cardLink(p)}).`;
  },
};

const BOARD_TEXTS: Record<string, (p: Wild) => string> = {
  removeMemberFromBoard: (p) => `removed ${p.at('action').at('member').at('fullName').str()} from ${boardLink(p)}.`,
  addMemberToBoard: (p) => `added ${p.at('action').at('member').at('fullName').str()} to ${boardLink(p)}.`,
  createList: (p) => `added ${data(p).at('list').at('name').str()} list to ${boardLink(p)}.`,
  changeName: (p) => `renamed the board from ${data(p).at('old').at('name').str()} to ${boardLink(p)}.`,
};

function cardAction(p: Wild, type: string): WebhookMessage[] {
  const action = type === 'updateCard' ? cardUpdate(p) : type;
  if (action === null) return [];
  const topic = data(p).at('board').at('name').str();
  const text = CARD_TEXTS[action](p);
  const creator = p.at('action').at('memberCreator').get('fullName').strOrNull() ?? 'None';
  return [{ topic, body: `${creator} ${text}` }];
}

function boardAction(p: Wild, type: string): WebhookMessage[] {
  let action = type;
  if (type === 'updateBoard') {
    const old = data(p).at('old');
    // A new background is not told.
    if (old.get('prefs', {}).has('background')) return [];
    if (!old.at('name').str()) throw unsupportedEvent(NAME, type);
    action = 'changeName';
  }
  const topic = data(p).at('board').at('name').str();
  const text = BOARD_TEXTS[action](p);
  return [{ topic, body: `${p.at('action').at('memberCreator').at('fullName').str()} ${text}` }];
}

export const trello: Integration = {
  name: NAME,
  succeedsOnHead: true,
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const type = p.at('action').at('type').str();
    if (SUPPORTED_CARD_ACTIONS.includes(type)) return cardAction(p, type);
    if (IGNORED_CARD_ACTIONS.includes(type)) return [];
    if (SUPPORTED_BOARD_ACTIONS.includes(type)) return boardAction(p, type);
    throw unsupportedEvent(NAME, type);
  },
};
