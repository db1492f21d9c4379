import { Catch, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import type { EnvelopeMeta, PayloadOf, TopicDefinition } from '@aoc/contracts';
import { EventPattern, Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { isObservable, lastValueFrom, throwError, type Observable } from 'rxjs';
import type { Bus, HandlerContext } from '../bus';

/**
 * NestJS custom transport strategy over the platform bus. `@EventPattern(Topics.x.name)`
 * handlers become bus subscriptions; the bus underneath is Kafka or the in-process broker.
 */
export class BusServer extends Server implements CustomTransportStrategy {
  constructor(private readonly bus: Bus) {
    super();
  }

  async listen(callback: (...optionalParams: unknown[]) => unknown): Promise<void> {
    try {
      const prepares: [string, (payload: unknown, ctx: unknown) => Promise<unknown>][] = [];
      for (const [pattern, handler] of this.messageHandlers) {
        const topicName = this.normalizePattern(pattern);
        if (topicName.endsWith(PREPARE_SUFFIX)) {
          prepares.push([topicName.slice(0, -PREPARE_SUFFIX.length), handler]);
          continue;
        }
        this.bus.subscribeByName(
          topicName,
          async (payload: unknown, ctx: HandlerContext) => {
            const out: unknown = await handler(payload, ctx);
            if (isObservable(out)) await lastValueFrom(out as Observable<unknown>, { defaultValue: undefined });
          },
        );
      }
      for (const [topicName, handler] of prepares) {
        this.bus.setPrepare(topicName, async (payload, envelope) => {
          const out: unknown = await handler(payload, envelope);
          return isObservable(out) ? lastValueFrom(out as Observable<unknown>, { defaultValue: undefined }) : out;
        });
      }
      await this.bus.start();
      callback();
    } catch (error) {
      callback(error);
    }
  }

  async close(): Promise<void> {
    await this.bus.stop();
  }

  on(): void {
    throw new Error('BusServer does not emit transport events; use the bus logger');
  }

  unwrap<T>(): T {
    return this.bus as T;
  }
}

/**
 * Nest's default RPC filter turns any error into `{status, message}`, which would hide the
 * error class the bus uses to decide retry vs dead-letter. This filter passes errors through.
 */
@Catch()
export class BusErrorPassthroughFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => exception);
  }
}

const PREPARE_SUFFIX = '#prepare';

/**
 * `@PrepareTopic(Topics.x)`: runs before the `@OnTopic` handler of the same topic, outside its
 * database transaction (for slow network work). Its return value is the handler's `ctx.prepared`.
 * Arguments: `@Payload()` and `@Ctx()` (the envelope metadata).
 */
export function PrepareTopic<T extends TopicDefinition>(topic: T) {
  const decorate = EventPattern<string>(`${topic.name}${PREPARE_SUFFIX}`);
  return (target: object, propertyKey: string | symbol, descriptor: TypedPropertyDescriptor<(payload: PayloadOf<T>, envelope: EnvelopeMeta) => Promise<unknown>>): void => {
    decorate(target, propertyKey, descriptor);
  };
}

/**
 * `@OnTopic(Topics.x)`: subscribes a controller method to a registry topic, typed by the topic's
 * payload schema. Use `@Payload()` and `@Ctx()` (a HandlerContext) for the arguments.
 */
export function OnTopic<T extends TopicDefinition>(topic: T) {
  const decorate = EventPattern<string>(topic.name);
  return (target: object, propertyKey: string | symbol, descriptor: TypedPropertyDescriptor<(payload: PayloadOf<T>, ctx: HandlerContext) => Promise<void>>): void => {
    decorate(target, propertyKey, descriptor);
  };
}
