import { useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model, type Message } from '../model.ts';
import { cx } from '../util.ts';
import type { Poll, Task, TodoList, Widget } from '../widgets.ts';
import { ErrorLine, FormButtons, useRequest } from './request.tsx';

type Run = (fn: () => Promise<unknown>) => Promise<boolean>;

/** Sends one widget submessage (POST /submessage); the submessage event then updates every reader's widget. */
function sendWidgetData(m: Message, data: Record<string, unknown>): Promise<unknown> {
  return api('POST', '/submessage', { message_id: m.id, msg_type: 'widget', content: JSON.stringify(data) });
}

/** A poll or to-do list (`widgetOf` the message), shown in place of the message's text. */
export function MessageWidget({ message, widget }: { message: Message; widget: Widget }) {
  const { busy, error, run } = useRequest();
  return (
    <section class={cx('widget', widget.kind)} aria-label={widget.kind === 'poll' ? `Poll: ${widget.question}` : `To-do list: ${widget.title}`}>
      {widget.kind === 'poll' ? <PollView m={message} poll={widget} busy={busy} run={run} /> : <TodoView m={message} list={widget} busy={busy} run={run} />}
      <ErrorLine error={error} />
    </section>
  );
}

/** The heading of a widget and, for the message's author, an editor for it (Enter or Save sends it). */
function EditableHeading({ m, text, field, onSave }: { m: Message; text: string; field: string; onSave(text: string): Promise<unknown> }) {
  const [draft, setDraft] = useState<string | null>(null);
  const { busy, error, run } = useRequest();
  const mine = m.sender_id === model.me.user_id;
  if (draft === null) {
    return (
      <div class="widget-head">
        <h4>{text}</h4>
        {mine && (
          <button type="button" class="btn small" onClick={() => setDraft(text)}>
            Edit {field.toLowerCase()}
          </button>
        )}
      </div>
    );
  }
  return (
    <form
      class="widget-head-edit"
      aria-label={`Edit ${field.toLowerCase()}`}
      onSubmit={(e) => {
        e.preventDefault();
        const value = draft.trim();
        if (value === text) return setDraft(null);
        void run(async () => {
          await onSave(value);
          setDraft(null);
        });
      }}
    >
      <label>
        {field}
        <input value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
      </label>
      <FormButtons submit="Save" disabled={busy || !draft.trim()} error={error} onCancel={() => setDraft(null)} />
    </form>
  );
}

function PollView({ m, poll, busy, run }: { m: Message; poll: Poll; busy: boolean; run: Run }) {
  const [option, setOption] = useState('');
  const [refusal, setRefusal] = useState<string | null>(null);
  // The last index sent, so that a second option sent before the first one's event is back gets the next one.
  const lastIdx = useRef(0);
  const me = model.me.user_id;
  return (
    <>
      <EditableHeading m={m} text={poll.question} field="Question" onSave={(question) => sendWidgetData(m, { type: 'question', question })} />
      <ul class="poll-options" aria-label="Options">
        {poll.options.map((o) => {
          const mine = o.voters.includes(me);
          return (
            <li key={o.key}>
              <button
                type="button"
                class={cx('poll-vote', mine && 'mine')}
                aria-pressed={mine}
                aria-label={`Vote for ${o.option}`}
                title={mine ? 'Take back your vote' : 'Vote'}
                disabled={busy}
                onClick={() => void run(() => sendWidgetData(m, { type: 'vote', key: o.key, vote: mine ? -1 : 1 }))}
              >
                {o.voters.length}
              </button>
              <span class="poll-option">{o.option}</span>
              {o.voters.length > 0 && <span class="poll-voters">({o.voters.map((id) => model.userName(id)).join(', ')})</span>}
            </li>
          );
        })}
      </ul>
      <form
        class="widget-add"
        aria-label="Add option"
        onSubmit={(e) => {
          e.preventDefault();
          const text = option.trim();
          setRefusal(null);
          if (poll.options.some((o) => o.option === text)) return setRefusal('This option is already in the poll.');
          const idx = Math.max(poll.nextIdx, lastIdx.current + 1);
          lastIdx.current = idx;
          void run(async () => {
            await sendWidgetData(m, { type: 'new_option', idx, option: text });
            setOption('');
          });
        }}
      >
        <label>
          New option
          <input value={option} onInput={(e) => setOption(e.currentTarget.value)} />
        </label>
        <button type="submit" class="btn small" disabled={busy || !option.trim()}>
          Add option
        </button>
        <ErrorLine error={refusal} />
      </form>
    </>
  );
}

function TodoView({ m, list, busy, run }: { m: Message; list: TodoList; busy: boolean; run: Run }) {
  const [task, setTask] = useState('');
  const [desc, setDesc] = useState('');
  const [refusal, setRefusal] = useState<string | null>(null);
  const lastKey = useRef(0);
  // A task just clicked shows its new state until the submessage comes back (a new submessage) or the request fails.
  const [clicked, setClicked] = useState<{ key: string; completed: boolean; seen: number } | null>(null);
  const shown = (t: Task) => (clicked?.key === t.key && clicked.seen === m.submessages.length ? clicked.completed : t.completed);
  function strike(t: Task): void {
    setClicked({ key: t.key, completed: !shown(t), seen: m.submessages.length });
    void run(() => sendWidgetData(m, { type: 'strike', key: t.key })).then((ok) => ok || setClicked(null));
  }
  return (
    <>
      <EditableHeading m={m} text={list.title} field="Title" onSave={(title) => sendWidgetData(m, { type: 'new_task_list_title', title })} />
      <ul class="todo-tasks" aria-label="Tasks">
        {list.tasks.map((t) => (
          <li key={t.key} class={cx(shown(t) && 'done')}>
            <label>
              <input type="checkbox" checked={shown(t)} disabled={busy} onChange={() => strike(t)} />
              <strong>{t.task}</strong>
            </label>
            {t.desc && <span class="todo-desc">: {t.desc}</span>}
          </li>
        ))}
      </ul>
      <form
        class="widget-add"
        aria-label="Add task"
        onSubmit={(e) => {
          e.preventDefault();
          const name = task.trim();
          setRefusal(null);
          if (list.tasks.some((t) => t.task === name)) return setRefusal('This task is already in the list.');
          const key = Math.max(list.nextKey, lastKey.current + 1);
          lastKey.current = key;
          void run(async () => {
            await sendWidgetData(m, { type: 'new_task', key, task: name, desc: desc.trim(), completed: false });
            setTask('');
            setDesc('');
          });
        }}
      >
        <label>
          New task
          <input value={task} onInput={(e) => setTask(e.currentTarget.value)} />
        </label>
        <label>
          Description
          <input value={desc} placeholder="optional" onInput={(e) => setDesc(e.currentTarget.value)} />
        </label>
        <button type="submit" class="btn small" disabled={busy || !task.trim()}>
          Add task
        </button>
        <ErrorLine error={refusal} />
      </form>
    </>
  );
}
