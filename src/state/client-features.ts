/** /register sections: saved snippets, client devices, and the message report types. */
import { feature, type StateProvider } from './registry.ts';
import { listSavedSnippets } from '../actions/saved-snippets.ts';
import { registerDevicesState } from '../actions/devices.ts';
import { serverReportMessageTypes } from '../actions/message-report.ts';

const provider: StateProvider = {
  types: ['saved_snippets', 'device', 'realm'],
  async fetch(svc, opts, wants) {
    const out: Record<string, unknown> = {};
    if (wants('saved_snippets')) out.saved_snippets = await listSavedSnippets(svc, opts.user);
    if (wants('device')) out.devices = await registerDevicesState(svc, opts.user);
    if (wants('realm')) out.server_report_message_types = serverReportMessageTypes();
    return out;
  },
};

export default feature({
  state: [provider],
});
