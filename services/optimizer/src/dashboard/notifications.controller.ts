import { Access, CurrentPrincipal, TENANCY, tenantScope, type Principal, type Tenancy } from '@aoc/auth';
import { DATA_SOURCE } from '@aoc/service-host';
import { BadRequestException, Controller, Get, Inject, NotFoundException, Param, Query } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { deliveryOnWrite } from '../notifications/notification-config';
import { NOTIFICATION_ID } from '../notifications/notification-payload';
import { allNotifications, DELIVERY_STATUSES, notificationById, notificationVisibleTo, type StoredNotification } from '../persistence/notification-store';
import { HtmlPage } from './html-page';
import { renderNotification, renderNotificationList } from './notifications.view';
import { oneParam } from './records.controller';

/**
 * The notification outbox, read-only: each terminal result's notification with its delivery status
 * (pending, delivered, gave_up, not_configured), attempts and last error, as pages and JSON. Scoped
 * like Focuses and records: one confined to a tenant sees the notifications whose tickets are all
 * its tenant's; another tenant's is "not found". The webhook's URL and secret are never shown.
 */
@Controller()
@Access('viewer')
export class NotificationsController {
  constructor(
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(TENANCY) private readonly tenancy: Tenancy,
  ) {}

  private async visible(principal: Principal, status: unknown): Promise<StoredNotification[]> {
    const wanted = oneParam('status', status);
    if (wanted !== undefined && !DELIVERY_STATUSES.some((s) => s === wanted)) throw new BadRequestException({ statusCode: 400, code: 'OPTIMIZER.INVALID_PARAM', field: 'status', message: `status: must be one of ${DELIVERY_STATUSES.join(', ')}` });
    const tenant = tenantScope(this.tenancy, principal);
    return (await allNotifications(this.dataSource.manager)).filter((n) => notificationVisibleTo(n, tenant) && (wanted === undefined || n.status === wanted));
  }

  private async one(notificationId: string, principal: Principal): Promise<StoredNotification> {
    if (!NOTIFICATION_ID.test(notificationId)) throw new NotFoundException({ code: 'OPTIMIZER.NOTIFICATION_NOT_FOUND', message: 'notificationId: must be ntf-<24 hex>' });
    const n = await notificationById(this.dataSource.manager, notificationId);
    if (!n || !notificationVisibleTo(n, tenantScope(this.tenancy, principal))) throw new NotFoundException({ code: 'OPTIMIZER.NOTIFICATION_NOT_FOUND', message: `no notification ${notificationId}` });
    return n;
  }

  @Get('notifications')
  @HtmlPage()
  async list(@Query('status') status: unknown, @CurrentPrincipal() principal: Principal): Promise<string> {
    return renderNotificationList(await this.visible(principal, status), deliveryOnWrite() === 'pending');
  }

  @Get('notifications/:notificationId')
  @HtmlPage()
  async detail(@Param('notificationId') notificationId: string, @CurrentPrincipal() principal: Principal): Promise<string> {
    return renderNotification(await this.one(notificationId, principal));
  }

  @Get('v1/notifications')
  async listJson(@Query('status') status: unknown, @CurrentPrincipal() principal: Principal): Promise<unknown> {
    return { webhookConfigured: deliveryOnWrite() === 'pending', notifications: await this.visible(principal, status) };
  }

  @Get('v1/notifications/:notificationId')
  async detailJson(@Param('notificationId') notificationId: string, @CurrentPrincipal() principal: Principal): Promise<unknown> {
    return this.one(notificationId, principal);
  }
}
