/**
 * Stripe (/api/v1/external/stripe): the event's `type` (`charge.succeeded`,
 * `customer.subscription.updated`, ...) is the event type; charges,
 * disputes and refunds (linked to the payment in Stripe's dashboard),
 * customers, discounts, subscriptions, invoices and invoice items, in
 * Zulip's words. The topic is the customer's ID where the object names one
 * (`charges`, `disputes`, `refunds` otherwise). Events of Stripe's products
 * Zulip does not describe (Connect, issuing, payouts, ...) and updates that
 * change nothing worth telling are answered with success and post nothing.
 */
import { badRequest } from '../errors.ts';
import { globalTime } from '../util.ts';
import { pyStr, type Wild } from './wild.ts';
import { jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';
import { pyCapitalize } from './python-text.ts';

const EVENT_TYPES = [
  'charge.dispute.closed',
  'charge.dispute.created',
  'charge.failed',
  'charge.succeeded',
  'customer.created',
  'customer.deleted',
  'customer.discount.created',
  'customer.subscription.created',
  'customer.subscription.deleted',
  'customer.subscription.trial_will_end',
  'customer.subscription.updated',
  'customer.updated',
  'invoice.created',
  'invoice.updated',
  'invoice.payment_failed',
  'invoiceitem.created',
  'charge.refund.updated',
] as const;

/** An event that posts nothing (Zulip's SuppressedEventError). */
class Suppressed extends Error {}

/** Stripe's object ID prefixes: what the object is called and where the dashboard shows it. */
const OBJECTS: Record<string, [string, string | null]> = {
  ch: ['Charge', 'payments'],
  cus: ['Customer', 'customers'],
  dp: ['Dispute', 'disputes'],
  du: ['Dispute', 'disputes'],
  file: ['File', 'files'],
  link: ['File link', 'file_links'],
  pi: ['Payment intent', 'payment_intents'],
  po: ['Payout', 'payouts'],
  prod: ['Product', 'products'],
  re: ['Refund', 'refunds'],
  tok: ['Token', 'tokens'],
  ba: ['Bank account', null],
  card: ['Card', null],
  src: ['Source', null],
  in: ['Invoice', 'invoices'],
  ii: ['Invoice item', 'invoiceitems'],
  sub: ['Subscription', 'subscriptions'],
  si: ['Subscription item', 'subscription_items'],
  mbur: ['Usage record', null],
  py: ['Payment', 'payments'],
  pyr: ['Refund', 'refunds'],
};

function objectName(id: string): [string, string | null] {
  const known = OBJECTS[id.split('_')[0]!];
  if (!known) throw badRequest(`Unknown Stripe object ID: ${id}`);
  return known;
}

function linkified(id: string): string {
  const [name, prefix] = objectName(id);
  return prefix === null ? name : `[${name}](https://dashboard.stripe.com/${prefix}/${id})`;
}

/** A payment's page in the dashboard: its payment intent's where it has one, else the charge's own. */
function paymentLink(label: string, obj: Wild, chargeKey: 'id' | 'charge'): string {
  const intent = obj.get('payment_intent').strOrNull();
  return `[${label}](https://dashboard.stripe.com/payments/${intent ?? obj.at(chargeKey).str()})`;
}

const ZERO_DECIMAL = ['bif', 'djf', 'jpy', 'krw', 'pyg', 'vnd', 'xaf', 'xpf', 'clp', 'gnf', 'kmf', 'mga', 'rwf', 'vuv', 'xof'];

function amount(obj: Wild, key = 'amount'): string {
  const value = obj.at(key).int();
  const currency = obj.at('currency').str();
  const decimal = ZERO_DECIMAL.includes(currency) ? String(value) : (value * 0.01).toFixed(2);
  return currency === 'usd' ? `$${decimal}` : `${decimal} ${currency.toUpperCase()}`;
}

/** A changed attribute's new value; Unix times of 2017-2033 as a global time. */
function stringify(v: unknown): string {
  if (typeof v === 'number' && Number.isInteger(v) && v > 1500000000 && v < 2000000000) return globalTime(new Date(v * 1000));
  return pyStr(v);
}

const words = (s: string): string => s.replace(/_/g, ' ');

function topicAndBody(p: Wild): [string, string] {
  const eventType = p.at('type').str();
  const parts = eventType.split('.');
  let category: string;
  let resource: string;
  let event: string;
  if (parts.length === 3) [category, resource, event] = parts as [string, string, string];
  else if (parts.length === 2) {
    [resource, event] = parts as [string, string];
    category = resource;
  } else throw unsupportedEvent('Stripe', eventType);
  const data = p.at('data');
  const obj = data.at('object');
  let topic = obj.get('customer').strOrNull() ?? '';
  let body: string | null = null;

  const updates = (excluded: string[] = []): string => {
    const changed = data
      .at('previous_attributes')
      .keys()
      .filter((k) => !excluded.includes(k))
      .sort();
    if (changed.length === 0) throw new Suppressed();
    return changed.map((k) => `\n* ${pyCapitalize(words(k))} is now ${stringify(obj.at(k).value)}`).join('');
  };
  const defaultBody = (excluded: string[] = [], subject = linkified(obj.at('id').str())): string => {
    const text = `${subject} ${words(event)}`;
    return event === 'updated' ? text + updates(excluded) : text;
  };

  if (category === 'account') {
    if (resource !== 'account') throw new Suppressed();
    if (event === 'updated') {
      if (!data.has('previous_attributes')) throw new Suppressed();
      topic = 'account updates';
      body = updates();
    }
  }
  if (['application_fee', 'balance', 'checkout_beta', 'coupon'].includes(category)) throw new Suppressed();
  if (category === 'charge') {
    if (resource === 'charge') {
      if (!topic) topic = 'charges';
      const [label] = objectName(obj.at('id').str());
      body = `${paymentLink(label, obj, 'id')} for ${amount(obj)} ${event}`;
      if (obj.at('failure_code').truthy) body += `. Failure code: ${obj.at('failure_code').str()}`;
    }
    if (resource === 'dispute') {
      topic = 'disputes';
      body = `${defaultBody([], paymentLink('Dispute', obj, 'charge'))}. Current status: ${words(obj.at('status').str())}.`;
    }
    if (resource === 'refund') {
      topic = 'refunds';
      const [label] = objectName(obj.at('charge').str());
      body = `A refund for a ${paymentLink(label.toLowerCase(), obj, 'charge')} of ${amount(obj)} ${words(obj.at('status').str())}.`;
    }
  }
  if (category === 'customer') {
    if (resource === 'customer') {
      topic = obj.at('id').str();
      body = defaultBody(['delinquent', 'currency', 'default_source']);
      if (event === 'created') {
        if (obj.at('email').truthy) body += `\nEmail: ${obj.at('email').str()}`;
        if (obj.at('metadata').truthy) {
          for (const [key, value] of obj.at('metadata').entries()) body += `\n${key}: ${value.str()}`;
        }
      }
    }
    if (resource === 'discount') {
      const coupon = obj.at('coupon');
      body = `Discount ${words(event)} ([${coupon.at('name').str()}](https://dashboard.stripe.com/coupons/${coupon.at('id').str()})).`;
    }
    if (resource === 'source') body = defaultBody();
    if (resource === 'subscription') {
      body = defaultBody();
      if (event === 'trial_will_end') {
        const DAY = 60 * 60 * 24;
        body += ` in ${Math.floor((obj.at('trial_end').int() - Date.now() / 1000 + DAY / 2) / DAY)} days`;
      }
      if (event === 'created') {
        const plan = obj.at('plan');
        if (plan.truthy) {
          const nickname = plan.at('nickname').strOrNull();
          const url = `https://dashboard.stripe.com/plans/${plan.at('id').str()}`;
          body += nickname !== null ? `\nPlan: [${nickname}](${url})` : `\nPlan: ${url}`;
        }
        if (obj.at('quantity').truthy) body += `\nQuantity: ${obj.at('quantity').int()}`;
        const billing = obj.has('billing') ? 'billing' : obj.has('collection_method') ? 'collection_method' : null;
        if (billing) body += `\nBilling method: ${words(obj.at(billing).str())}`;
      }
    }
  }
  if (category === 'file') {
    topic = 'files';
    body = `${defaultBody()} (${words(obj.at('purpose').str())}). \nTitle: ${obj.at('title').str()}`;
  }
  if (category === 'invoice') {
    if (event === 'upcoming') body = 'Upcoming invoice created';
    else if (
      event === 'updated' &&
      data.at('previous_attributes').get('paid').value === false &&
      obj.at('paid').bool() === true &&
      obj.at('amount_paid').int() !== 0 &&
      obj.at('amount_remaining').int() === 0
    ) {
      body = `[Invoice](https://dashboard.stripe.com/invoices/${obj.at('id').str()}) is now paid`;
    } else {
      body = defaultBody(['lines', 'description', 'number', 'finalized_at', 'status_transitions', 'payment_intent']);
    }
    if (event === 'created') {
      body += ` (${words(obj.at('billing_reason').str())})\nTotal: ${amount(obj, 'total')}\nAmount due: ${amount(obj, 'amount_due')}`;
    }
  }
  if (category === 'invoiceitem') {
    // Linked to its invoice where it belongs to one.
    const invoice = obj.get('invoice').strOrNull();
    const subject = invoice ? `[Invoice item](https://dashboard.stripe.com/invoices/${invoice})` : 'Invoice item';
    body = defaultBody(['description', 'invoice'], subject);
    if (event === 'created') body += ` for ${amount(obj)}`;
  }
  if (category.startsWith('issuing') || category.startsWith('order')) throw new Suppressed();
  if (
    ['payment_intent', 'payout', 'plan', 'product', 'recipient', 'reporting', 'review', 'sigma', 'sku', 'source', 'subscription_schedule', 'topup', 'transfer'].includes(
      category,
    )
  ) {
    throw new Suppressed();
  }
  if (body === null) throw unsupportedEvent('Stripe', eventType);
  return [topic, body];
}

export const stripe: Integration = {
  name: 'Stripe',
  eventTypes: EVENT_TYPES,
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    let topic: string;
    let body: string;
    try {
      [topic, body] = topicAndBody(p);
    } catch (e) {
      if (e instanceof Suppressed) return [];
      throw e;
    }
    return [{ topic, body, eventType: p.at('type').str() }];
  },
};
