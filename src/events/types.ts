/** Shapes shared by the event system and the code that sends events. */

export interface ZulipEvent {
  type: string;
  [key: string]: unknown;
}

/**
 * A recipient of an event: a user ID, or a user ID with per-user data (for
 * message events, the user's flags) merged into that user's copy.
 */
export type Recipient = number | { id: number; extra: Record<string, unknown> };

/** What the fan-out carries: one event and who receives it. */
export interface Envelope {
  event: ZulipEvent;
  recipients: Recipient[];
  options?: DeliveryOptions;
}

export interface DeliveryOptions {
  /**
   * Also deliver to every queue registered with all_public_streams (a public
   * channel message), for users not among the recipients, with no flags.
   */
  allPublicStreamsQueues?: boolean;
}
