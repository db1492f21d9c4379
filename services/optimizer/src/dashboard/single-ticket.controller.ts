import { Access, CurrentPrincipal, TENANCY, tenantScope, type Principal, type Tenancy } from '@aoc/auth';
import { DATA_SOURCE } from '@aoc/service-host';
import { Controller, Get, Inject, NotFoundException, Param } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { notificationsAbout, notificationVisibleTo } from '../persistence/notification-store';
import { allJobs, jobById, jobVisibleTo, triggersOf, type SingleTicketJob } from '../persistence/single-ticket-store';
import { HtmlPage } from './html-page';
import { renderJob, renderJobList } from './single-ticket.view';

export const JOB_ID = /^stj-[0-9a-f]{24}$/;

/**
 * The single-ticket jobs as pages and JSON. Scoped like records: one confined to a tenant sees the
 * jobs of its tenant's tickets; another tenant's job is "not found".
 */
@Controller()
@Access('viewer')
export class SingleTicketController {
  constructor(
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(TENANCY) private readonly tenancy: Tenancy,
  ) {}

  private async visible(principal: Principal): Promise<SingleTicketJob[]> {
    const tenant = tenantScope(this.tenancy, principal);
    return (await allJobs(this.dataSource.manager)).filter((j) => jobVisibleTo(j, tenant));
  }

  private async one(jobId: string, principal: Principal) {
    if (!JOB_ID.test(jobId)) throw new NotFoundException({ code: 'OPTIMIZER.JOB_NOT_FOUND', message: 'jobId: must be stj-<24 hex>' });
    const tenant = tenantScope(this.tenancy, principal);
    const job = await jobById(this.dataSource.manager, jobId);
    if (!job || !jobVisibleTo(job, tenant)) throw new NotFoundException({ code: 'OPTIMIZER.JOB_NOT_FOUND', message: `no single-ticket job ${jobId}` });
    const notifications = (await notificationsAbout(this.dataSource.manager, jobId)).filter((n) => notificationVisibleTo(n, tenant));
    return { job, triggers: await triggersOf(this.dataSource.manager, jobId), notifications };
  }

  @Get('single-ticket')
  @HtmlPage()
  async list(@CurrentPrincipal() principal: Principal): Promise<string> {
    return renderJobList(await this.visible(principal));
  }

  @Get('single-ticket/:jobId')
  @HtmlPage()
  async detail(@Param('jobId') jobId: string, @CurrentPrincipal() principal: Principal): Promise<string> {
    const { job, triggers, notifications } = await this.one(jobId, principal);
    return renderJob(job, triggers, notifications);
  }

  @Get('v1/single-ticket-jobs')
  async listJson(@CurrentPrincipal() principal: Principal): Promise<unknown> {
    return { jobs: await this.visible(principal) };
  }

  @Get('v1/single-ticket-jobs/:jobId')
  async detailJson(@Param('jobId') jobId: string, @CurrentPrincipal() principal: Principal): Promise<unknown> {
    const { job, triggers, notifications } = await this.one(jobId, principal);
    return { ...job, triggers, notifications: notifications.map((n) => ({ notificationId: n.notificationId, status: n.status })) };
  }
}
