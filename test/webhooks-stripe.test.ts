/**
 * The Stripe integration: Zulip's own test cases (payloads trimmed to what is
 * read; Stripe posts JSON, which Zulip reads whatever the Content-Type
 * says): charges, disputes and refunds linked to the payment, customers,
 * discounts, subscriptions, invoices and invoice items, and the events that
 * post nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('stripe');
const { hook, expectPosted, last } = h;

const FORM = { contentType: 'application/x-www-form-urlencoded' };
const event = (type: string, object: Record<string, unknown>, previous?: Record<string, unknown>) => ({
  id: 'evt_00000000000000',
  type,
  object: 'event',
  data: previous ? { object, previous_attributes: previous } : { object },
});

test('stripe: charges (a payment intent\'s page where there is one), disputes and refunds', async () => {
  const charge = { id: 'ch_00000000000000', amount: 100, currency: 'aud', customer: null, failure_code: null };
  const m = await expectPosted(await hook('stripe', event('charge.failed', charge), FORM), 'charges', '[Charge](https://dashboard.stripe.com/payments/ch_00000000000000) for 1.00 AUD failed');
  assert.equal(m.client, 'ZulipStripeWebhook');
  await expectPosted(
    await hook('stripe', event('charge.failed', { ...charge, id: 'ch_3TbGfy', payment_intent: 'pi_3TbGfyJEe0yY0QKr0V9PBbP9', amount: 2200, currency: 'usd', failure_code: 'card_declined' })),
    'charges',
    '[Charge](https://dashboard.stripe.com/payments/pi_3TbGfyJEe0yY0QKr0V9PBbP9) for $22.00 failed. Failure code: card_declined',
  );
  await expectPosted(
    await hook('stripe', event('charge.succeeded', { ...charge, id: 'ch_000000000000000000000000', customer: 'cus_00000000000000', payment_intent: null }), FORM),
    'cus_00000000000000',
    '[Charge](https://dashboard.stripe.com/payments/ch_000000000000000000000000) for 1.00 AUD succeeded',
  );
  await expectPosted(
    await hook('stripe', event('charge.succeeded', { ...charge, id: 'py_000000000000000000000000', customer: 'cus_00000000000000', currency: 'usd' }), FORM),
    'cus_00000000000000',
    '[Payment](https://dashboard.stripe.com/payments/py_000000000000000000000000) for $1.00 succeeded',
  );
  await expectPosted(
    await hook('stripe', event('charge.succeeded', { ...charge, amount: 1000, currency: 'jpy' })),
    'charges',
    '[Charge](https://dashboard.stripe.com/payments/ch_00000000000000) for 1000 JPY succeeded',
  );

  const dispute = { id: 'dp_00000000000000', charge: 'ch_00000000000000', status: 'won' };
  await expectPosted(await hook('stripe', event('charge.dispute.closed', dispute), FORM), 'disputes', '[Dispute](https://dashboard.stripe.com/payments/ch_00000000000000) closed. Current status: won.');
  await expectPosted(
    await hook('stripe', event('charge.dispute.created', { ...dispute, id: 'pdp_00000000000000', status: 'needs_response' }), FORM),
    'disputes',
    '[Dispute](https://dashboard.stripe.com/payments/ch_00000000000000) created. Current status: needs response.',
  );
  await expectPosted(
    await hook('stripe', event('charge.dispute.closed', { ...dispute, payment_intent: 'pi_3TbG44JEe0yY0QKr0OnHpigY', status: 'lost' })),
    'disputes',
    '[Dispute](https://dashboard.stripe.com/payments/pi_3TbG44JEe0yY0QKr0OnHpigY) closed. Current status: lost.',
  );

  const refund = { id: 're_1Gib6ZHLwdCOCoR7VrzCnXlj', charge: 'ch_1Gib61HLwdCOCoR71rnkccye', payment_intent: 'pi_1Gib60HLwdCOCoR7KJbTO3U7', amount: 30000000, currency: 'inr', status: 'failed' };
  await expectPosted(
    await hook('stripe', event('charge.refund.updated', refund)),
    'refunds',
    'A refund for a [charge](https://dashboard.stripe.com/payments/pi_1Gib60HLwdCOCoR7KJbTO3U7) of 300000.00 INR failed.',
  );
  await expectPosted(
    await hook('stripe', event('charge.refund.updated', { ...refund, status: 'requires_action' })),
    'refunds',
    'A refund for a [charge](https://dashboard.stripe.com/payments/pi_1Gib60HLwdCOCoR7KJbTO3U7) of 300000.00 INR requires action.',
  );
  await expectPosted(
    await hook('stripe', event('charge.refund.updated', { id: 'pyr_abcde12345ABCDF', charge: 'py_abcde12345ABCDG', payment_intent: 'pi_abcd1234ABCDH', amount: 1234, currency: 'eur', status: 'succeeded' })),
    'refunds',
    'A refund for a [payment](https://dashboard.stripe.com/payments/pi_abcd1234ABCDH) of 12.34 EUR succeeded.',
  );
});

test('stripe: customers, discounts and subscriptions (changed attributes, times as global times, trial ends)', async () => {
  const customer = { id: 'cus_00000000000000', email: null, metadata: {} };
  await expectPosted(await hook('stripe', event('customer.created', customer), FORM), 'cus_00000000000000', '[Customer](https://dashboard.stripe.com/customers/cus_00000000000000) created');
  await expectPosted(
    await hook('stripe', event('customer.created', { ...customer, email: 'example@abc.com', metadata: { plan: 'gold' } }), FORM),
    'cus_00000000000000',
    '[Customer](https://dashboard.stripe.com/customers/cus_00000000000000) created\nEmail: example@abc.com\nplan: gold',
  );
  await expectPosted(await hook('stripe', event('customer.deleted', customer), FORM), 'cus_00000000000000', '[Customer](https://dashboard.stripe.com/customers/cus_00000000000000) deleted');
  await expectPosted(
    await hook('stripe', event('customer.updated', { ...customer, account_balance: 100, delinquent: true }, { account_balance: 0, delinquent: false })),
    'cus_00000000000000',
    '[Customer](https://dashboard.stripe.com/customers/cus_00000000000000) updated\n* Account balance is now 100',
  );
  await expectPosted(
    await hook('stripe', event('customer.discount.created', { customer: 'cus_00000000000000', coupon: { id: '25_00000000000000', name: '25.5% off' } }), FORM),
    'cus_00000000000000',
    'Discount created ([25.5% off](https://dashboard.stripe.com/coupons/25_00000000000000)).',
  );

  const sub = { id: 'sub_E6STM5w5EX3K28', customer: 'cus_00000000000000', plan: { id: 'plan_E6SQ6RAtmLVtzg', nickname: 'flatrate' }, quantity: 800, billing: 'send_invoice' };
  const created = '[Subscription](https://dashboard.stripe.com/subscriptions/sub_E6STM5w5EX3K28) created';
  await expectPosted(
    await hook('stripe', event('customer.subscription.created', sub), FORM),
    'cus_00000000000000',
    `${created}\nPlan: [flatrate](https://dashboard.stripe.com/plans/plan_E6SQ6RAtmLVtzg)\nQuantity: 800\nBilling method: send invoice`,
  );
  await expectPosted(
    await hook('stripe', event('customer.subscription.created', { ...sub, plan: { id: 'plan_E6SQ6RAtmLVtzg', nickname: null } }), FORM),
    'cus_00000000000000',
    `${created}\nPlan: https://dashboard.stripe.com/plans/plan_E6SQ6RAtmLVtzg\nQuantity: 800\nBilling method: send invoice`,
  );
  const { billing: _billing, ...withoutBilling } = sub;
  await expectPosted(
    await hook('stripe', event('customer.subscription.created', { ...withoutBilling, customer: 'cus_UZ11RVzkmLf6Cf', plan: { id: 'price_1TZtAjJEe0yY0QKr27Tj0mDA', nickname: null }, quantity: 1, collection_method: 'charge_automatically' })),
    'cus_UZ11RVzkmLf6Cf',
    `${created}\nPlan: https://dashboard.stripe.com/plans/price_1TZtAjJEe0yY0QKr27Tj0mDA\nQuantity: 1\nBilling method: charge automatically`,
  );
  const updated = {
    ...sub,
    billing_cycle_anchor: 1572609600,
    current_period_end: 1572609600,
    current_period_start: 1544075635,
    start: 1544075635,
    status: 'trialing',
    trial_end: 1572609600,
    trial_start: 1544075635,
  };
  const previous = { billing_cycle_anchor: null, current_period_end: null, current_period_start: null, start: null, status: 'active', trial_end: null, trial_start: null };
  await expectPosted(
    await hook('stripe', event('customer.subscription.updated', updated, previous), FORM),
    'cus_00000000000000',
    '[Subscription](https://dashboard.stripe.com/subscriptions/sub_E6STM5w5EX3K28) updated\n' +
      '* Billing cycle anchor is now <time:2019-11-01T12:00:00+00:00>\n' +
      '* Current period end is now <time:2019-11-01T12:00:00+00:00>\n' +
      '* Current period start is now <time:2018-12-06T05:53:55+00:00>\n' +
      '* Start is now <time:2018-12-06T05:53:55+00:00>\n' +
      '* Status is now trialing\n' +
      '* Trial end is now <time:2019-11-01T12:00:00+00:00>\n' +
      '* Trial start is now <time:2018-12-06T05:53:55+00:00>',
  );
  await expectPosted(await hook('stripe', event('customer.subscription.deleted', { ...sub, id: 'sub_00000000000000' }), FORM), 'cus_00000000000000', '[Subscription](https://dashboard.stripe.com/subscriptions/sub_00000000000000) deleted');
  // Three days before the trial's end, and a little more.
  const trialEnd = Math.floor(Date.now() / 1000) + 3 * 86400 + 100;
  await expectPosted(
    await hook('stripe', event('customer.subscription.trial_will_end', { ...sub, id: 'sub_00000000000000', trial_end: trialEnd }), FORM),
    'cus_00000000000000',
    '[Subscription](https://dashboard.stripe.com/subscriptions/sub_00000000000000) trial will end in 3 days',
  );
});

test('stripe: invoices (created, paid, failed) and invoice items (linked to their invoice)', async () => {
  const invoice = { id: 'in_1GpmuuHLwdCOCoR7ghzQDQLW', customer: 'cus_HH97asvHvaYQYp', billing_reason: 'manual', total: 0, amount_due: 0, currency: 'inr' };
  await expectPosted(
    await hook('stripe', event('invoice.created', invoice)),
    'cus_HH97asvHvaYQYp',
    '[Invoice](https://dashboard.stripe.com/invoices/in_1GpmuuHLwdCOCoR7ghzQDQLW) created (manual)\nTotal: 0.00 INR\nAmount due: 0.00 INR',
  );
  await expectPosted(
    await hook('stripe', event('invoice.payment_failed', { ...invoice, id: 'in_00000000000000', customer: 'cus_00000000000000' }), FORM),
    'cus_00000000000000',
    '[Invoice](https://dashboard.stripe.com/invoices/in_00000000000000) payment failed',
  );
  const paid = { id: 'in_1EjLINHuGUuNWDDZjDf2WNqd', customer: 'cus_FDmrSwQt9Fck5M', paid: true, amount_paid: 500, amount_remaining: 0, status: 'paid' };
  await expectPosted(
    await hook('stripe', event('invoice.updated', paid, { paid: false, status: 'open' }), FORM),
    'cus_FDmrSwQt9Fck5M',
    '[Invoice](https://dashboard.stripe.com/invoices/in_1EjLINHuGUuNWDDZjDf2WNqd) is now paid',
  );
  // Any other update lists what changed, leaving out what Zulip leaves out.
  await expectPosted(
    await hook('stripe', event('invoice.updated', { ...paid, paid: false, status: 'uncollectible', number: 'X-1' }, { status: 'open', number: 'X-0' })),
    'cus_FDmrSwQt9Fck5M',
    '[Invoice](https://dashboard.stripe.com/invoices/in_1EjLINHuGUuNWDDZjDf2WNqd) updated\n* Status is now uncollectible',
  );
  await expectPosted(
    await hook('stripe', event('invoiceitem.created', { id: 'ii_00000000000000', customer: 'cus_00000000000000', invoice: null, amount: 1000, currency: 'cad' }), FORM),
    'cus_00000000000000',
    'Invoice item created for 10.00 CAD',
  );
  await expectPosted(
    await hook('stripe', event('invoiceitem.created', { id: 'ii_1Tceef', customer: 'cus_UZ11RVzkmLf6Cf', invoice: 'in_1TceefJEe0yY0QKrKgc29TeP', amount: 12100, currency: 'usd' }), FORM),
    'cus_UZ11RVzkmLf6Cf',
    '[Invoice item](https://dashboard.stripe.com/invoices/in_1TceefJEe0yY0QKrKgc29TeP) created for $121.00',
  );
});

test('stripe: events that post nothing, unsupported ones, malformed payloads, and the URL generator\'s entry', async () => {
  const before = await last();
  // An account update without its previous attributes, one that changes only what is left out, Connect's and other products' events.
  assertSuccess(await hook('stripe', event('account.updated', { id: 'acct_00000000000000' })));
  assertSuccess(await hook('stripe', event('customer.updated', { id: 'cus_00000000000000', delinquent: true }, { delinquent: false })));
  assertSuccess(await hook('stripe', event('account.application.authorized', { id: 'ca_1' })));
  assertSuccess(await hook('stripe', event('payout.paid', { id: 'po_1', amount: 1, currency: 'usd' })));
  assertSuccess(await hook('stripe', event('issuing_card.created', { id: 'ic_1' })));
  assert.equal((await last()).id, before.id);

  const unsupported = await hook('stripe', event('customer.tax_id.created', { id: 'txi_1', customer: 'cus_1' }));
  assert.equal(unsupported.status, 200);
  assert.equal(unsupported.body.code, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE');
  assert.equal(unsupported.body.msg, "The 'customer.tax_id.created' event isn't currently supported by the Stripe webhook; ignoring");

  assertError(await hook('stripe', event('charge.failed', { id: 'ch_1', currency: 'usd', customer: null, failure_code: null })), 400, 'BAD_REQUEST', "payload['data']['object']['amount'] is missing");
  assertError(await hook('stripe', event('customer.updated', { id: 'cus_1' })), 400, 'BAD_REQUEST', "payload['data']['previous_attributes'] is missing");
  assertError(await hook('stripe', event('charge.succeeded', { id: 'zz_1', amount: 1, currency: 'usd', failure_code: null })), 400, 'BAD_REQUEST', 'Unknown Stripe object ID: zz_1');

  const listed = await h.listed('stripe');
  assert.equal(listed?.display_name, 'Stripe');
  assert.ok(listed?.all_event_types.includes('customer.subscription.trial_will_end'));
  assert.equal(listed?.all_event_types.length, 17);
});
