import {
  MAX_WEBHOOK_BATCH,
  WEBHOOK_SIGNATURE_HEADER,
  webhookSignature,
} from '../../domain/webhook.js';

/**
 * The `webhooks` object of the OpenAPI 3.1 document: the request Onair sends to a webhook's URL
 * (it is not a route of Onair's, so it is described here rather than built from a route). The
 * records are the `Change` schema of `/api/v1/changes`, referred to by name.
 */

const EXAMPLE_BODY = {
  webhookId: '3f0c2a4e-8d61-4f5b-9a8e-2b7d1c9e6a10',
  changes: [
    {
      seq: 1025,
      kind: 'programme',
      change: 'changed',
      channelId: 'dd41cb78-ddbb-5222-af7d-7173a2d56458',
      at: '20260822061500 +0000',
      programmeId: '1298405571003348172',
      start: '20260822080000 +0000',
    },
  ],
};

/** The payload's schema, declared in `components.schemas` as `WebhookPayload`. */
export const WEBHOOK_PAYLOAD_SCHEMA = {
  type: 'object',
  title: 'WebhookPayload',
  description: `What a webhook's URL receives: the webhook's id and at most ${MAX_WEBHOOK_BATCH} change records, in \`seq\` order (none in a test request)`,
  required: ['webhookId', 'changes'],
  additionalProperties: false,
  properties: {
    webhookId: { type: 'string', format: 'uuid', description: 'The webhook this request is for' },
    changes: {
      type: 'array',
      maxItems: MAX_WEBHOOK_BATCH,
      items: { $ref: '#/components/schemas/Change' },
      description: 'Records exactly as `GET /api/v1/changes` gives them',
    },
  },
};

export function webhooksObject(): Record<string, unknown> {
  const body = JSON.stringify(EXAMPLE_BODY);
  return {
    changes: {
      post: {
        operationId: 'receiveChanges',
        summary: 'Changes of your channels, POSTed to your webhook URL after an ingest',
        description: [
          "Sent by Onair to a webhook's URL (made on the account page or with `onair webhooks create`) after each ingest that changed a channel it follows, one batch at a time, in `seq` order.",
          `The body is signed: \`${WEBHOOK_SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>", keyed with the webhook's secret>\`. Check it on the raw body, and refuse a \`t\` more than a few minutes away (the TypeScript client's \`verifyWebhook\` does both).`,
          'Any 2xx answer counts as delivered. Anything else, a redirect included, or no answer within 10 s, is a failure: the same batch is sent again 30 s later, then after twice as long each time, for 24 hours; then the webhook is disabled. Delivery is at least once: skip records whose `seq` you already have.',
        ].join('\n\n'),
        tags: ['Webhooks'],
        security: [],
        parameters: [
          {
            name: WEBHOOK_SIGNATURE_HEADER,
            in: 'header',
            required: true,
            description: 'When it was signed, and the signature of `<t>.<raw body>`',
            schema: { type: 'string', pattern: '^t=\\d+,v1=[0-9a-f]{64}$' },
            example: webhookSignature('whsec_example', 1787383200, body),
          },
          {
            name: 'Onair-Webhook-Id',
            in: 'header',
            required: true,
            description: 'The webhook this request is for (as `webhookId` in the body)',
            schema: { type: 'string', format: 'uuid' },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/WebhookPayload' },
              examples: { batch: { summary: 'A batch of one record', value: EXAMPLE_BODY } },
            },
          },
        },
        responses: {
          '200': { description: 'Delivered: any 2xx status' },
          '400': {
            description:
              'Any other status (here a signature the receiver refused): sent again later',
          },
        },
      },
    },
  };
}
