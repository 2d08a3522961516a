import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import {
  type AcceptedPayment,
  isPaymentAuthorization,
  PAYMENT_SIGNATURE_HEADER,
  type PaymentGate,
} from '../payments/gate.ts';
import { openapiPath, operationPrice, type PriceTable } from '../payments/prices.ts';
import { type PayableResource, paymentInfo, requirementsFor } from '../payments/terms.ts';
import { problem, toDocument } from '../problem.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** `/.well-known/x402`: every payable operation and agent tool with its terms. */
    x402Document: () => X402Document;
    /** Pay per request: the gate (absent with payments off) and the price table. */
    payments: { gate?: PaymentGate; prices: PriceTable; network: string };
  }
  interface FastifyRequest {
    /** The payment this request is served for (pay per request, no account). */
    payment?: { accepted: AcceptedPayment; resource: PayableResource; done: boolean };
  }
}

export interface PaymentsPluginOptions {
  /** Absent: payments are off (no recipient configured); billable routes need an account. */
  gate?: PaymentGate;
  prices: PriceTable;
  publicUrl: string;
  docsUrl: string;
  /** The network the terms name (also when payments are off). */
  network: string;
  /** `{mcp_url}`: where the priced agent tools are called. */
  mcpUrl: string;
}

/** The discovery document both hosts serve at `/.well-known/x402`. */
export interface X402Document {
  x402Version: 2;
  payments: 'on' | 'off';
  networks: string[];
  schemes: string[];
  protocols: string[];
  resources: Record<string, unknown>[];
  tools: Record<string, unknown>[];
}

/** The x402 `resource.url` of an agent tool (the x402 MCP transport's form). */
export const toolResourceUrl = (name: string) => `mcp://tool/${name}`;

/** Whether a request to this route may be paid for instead of authenticated. */
export function payableRoute(
  gate: PaymentGate | undefined,
  prices: PriceTable,
  request: FastifyRequest,
): number | undefined {
  if (!gate || !request.routeOptions.url) return undefined;
  return operationPrice(prices, request.method, request.routeOptions.url);
}

/**
 * Pay per request. A billable route reached without an account credential answers 402 with the
 * terms (x402 `PAYMENT-REQUIRED` and a `WWW-Authenticate: Payment` challenge); a request carrying
 * a payment has it verified and reserved before the route runs, settled when the answer is a
 * success (the receipt header is added) and released otherwise, so a failed request is never
 * charged. `/.well-known/x402` lists every payable operation with its terms.
 */
export const paymentsPlugin = fp<PaymentsPluginOptions>(async (app: FastifyInstance, opts) => {
  const { gate, prices } = opts;
  const payable: { method: string; path: string; summary?: string }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
    for (const method of methods) {
      if (operationPrice(prices, method, route.url) !== undefined)
        payable.push({
          method,
          path: openapiPath(route.url),
          summary: route.schema?.summary as string | undefined,
        });
    }
  });

  app.decorateRequest('payment', undefined);

  app.addHook('onRequest', async (request) => {
    // An account, or a paid tool call's in-process call (its tool call settles): nothing to do.
    if (request.principal || request.payment) return;
    const cents = payableRoute(gate, prices, request);
    if (cents === undefined || !gate) return;
    const resource: PayableResource = {
      method: request.method,
      target: request.url,
      url: `${opts.publicUrl}${request.url}`,
      description: (request.routeOptions.schema?.summary as string | undefined) ?? request.routeOptions.url!,
      cents,
    };
    const authorization = request.headers.authorization;
    const signature = request.headers[PAYMENT_SIGNATURE_HEADER];
    const result = await gate.accept(resource, {
      signature: typeof signature === 'string' ? signature : undefined,
      authorization: isPaymentAuthorization(authorization) ? authorization : undefined,
    });
    if ('none' in result) {
      throw problem(
        'payment_required',
        `${request.routeOptions.url} costs ${cents} US cent${cents === 1 ? '' : 's'} per request; pay with x402 or the Payment scheme, or send an API key.`,
        {
          headers: gate.terms(resource).headers,
          errors: [
            { location: `header.${PAYMENT_SIGNATURE_HEADER}`, message: 'is required (or an API key)' },
          ],
          resolve: {
            message:
              'Sign the transfer in PAYMENT-REQUIRED (or answer the Payment challenge) and repeat the identical request with PAYMENT-SIGNATURE (or Authorization: Payment); or send an API key.',
            action: 'pay_per_request',
            url: `${opts.publicUrl}/auth.md`,
          },
        },
      );
    }
    if ('refused' in result) {
      request.log.info({ reason: result.reason, status: result.status }, 'payment refused');
      throw problem(result.code, result.detail, {
        status: result.status,
        headers: result.headers,
        reason: result.reason,
        errors: [{ location: result.location, message: result.reason }],
      });
    }
    request.payment = { accepted: result, resource, done: false };
  });

  // Settled only once the answer is known to be a success, before it is sent.
  app.addHook('onSend', async (request, reply, payload) => {
    const payment = request.payment;
    if (!payment || payment.done || !gate) return payload;
    payment.done = true;
    if (reply.statusCode >= 400) {
      await release(request, reply.statusCode);
      return payload;
    }
    const settled = await gate.settle(payment.accepted, payment.resource);
    if (settled.settled) {
      request.log.info(
        { payment: settled.record.id, protocol: settled.record.protocol, tx: settled.record.tx_hash },
        'payment settled',
      );
      for (const [k, v] of Object.entries(settled.headers)) reply.header(k, v);
      return payload;
    }
    request.log.warn(
      { payment: payment.accepted.record.id, reason: settled.reason },
      'payment settlement failed',
    );
    return withheld(reply, request, settled);
  });

  // Answers that never reached onSend (a client gone mid-request): released, never charged.
  app.addHook('onResponse', async (request, reply) => {
    if (request.payment && !request.payment.done) {
      request.payment.done = true;
      await release(request, reply.statusCode);
    }
  });

  async function release(request: FastifyRequest, status: number) {
    try {
      await gate!.release(request.payment!.accepted, `answered ${status}`);
    } catch (err) {
      request.log.error(
        { err, payment: request.payment!.accepted.record.id },
        'could not record a released payment',
      );
    }
  }

  function withheld(
    reply: FastifyReply,
    request: FastifyRequest,
    settled: { reason: string; detail: string; headers: Record<string, string> },
  ): string {
    const err = problem('payment_settlement_failed', settled.detail, {
      headers: settled.headers,
      reason: settled.reason,
      errors: [{ location: 'payment', message: settled.reason }],
    });
    reply.code(err.status).type('application/problem+json');
    for (const [k, v] of Object.entries(settled.headers)) reply.header(k, v);
    return JSON.stringify(toDocument(err, opts.docsUrl, request.url.split('?')[0]!));
  }

  app.decorate('payments', { gate, prices, network: opts.network });
  app.decorate('x402Document', (): X402Document => {
    const settings = gate?.termsSettings;
    const resources = [...payable]
      .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))
      .map((op) => {
        const cents = prices.operations[`${op.method} ${op.path}`]!;
        return {
          method: op.method,
          path: op.path,
          url: `${opts.publicUrl}${op.path}`,
          ...(op.summary ? { description: op.summary } : {}),
          ...paymentInfo(settings, opts.network, cents),
          ...(settings ? { accepts: [requirementsFor(settings, cents)] } : {}),
        };
      });
    const tools = Object.entries(prices.tools)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, cents]) => ({
        tool: name,
        url: toolResourceUrl(name),
        mcp_url: opts.mcpUrl,
        ...paymentInfo(settings, opts.network, cents),
        ...(settings ? { accepts: [requirementsFor(settings, cents)] } : {}),
      }));
    return {
      x402Version: 2,
      payments: settings ? 'on' : 'off',
      networks: [opts.network],
      schemes: ['exact'],
      protocols: ['x402', 'mpp'],
      resources,
      tools,
    };
  });
  app.get('/.well-known/x402', { schema: { hide: true } }, async () => app.x402Document());
});
