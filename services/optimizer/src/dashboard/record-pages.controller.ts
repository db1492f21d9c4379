import { Access, CurrentPrincipal, TENANCY, tenantScope, type Principal, type Tenancy } from '@aoc/auth';
import { DATA_SOURCE } from '@aoc/service-host';
import { Controller, Get, Inject, NotFoundException, Param } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { notificationsAbout, notificationVisibleTo } from '../persistence/notification-store';
import { allRecords, recordById, recordVisibleTo } from '../persistence/record-store';
import { HtmlPage } from './html-page';
import { RECORD_ID } from './records.controller';
import { renderProblems, renderRecord, renderRecordList } from './records.view';

/**
 * The optimisation records and the problems' statuses as pages (the JSON is `RecordsController`'s),
 * scoped like it: one confined to a tenant sees the records whose tickets are all its tenant's;
 * another tenant's record is "not found".
 */
@Controller()
@Access('viewer')
export class RecordPagesController {
  constructor(
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(TENANCY) private readonly tenancy: Tenancy,
  ) {}

  private async visible(principal: Principal) {
    const tenant = tenantScope(this.tenancy, principal);
    return (await allRecords(this.dataSource.manager)).filter((r) => recordVisibleTo(r, tenant));
  }

  @Get('optimization-records')
  @HtmlPage()
  async list(@CurrentPrincipal() principal: Principal): Promise<string> {
    return renderRecordList(await this.visible(principal));
  }

  @Get('optimization-records/:recordId')
  @HtmlPage()
  async detail(@Param('recordId') recordId: string, @CurrentPrincipal() principal: Principal): Promise<string> {
    if (!RECORD_ID.test(recordId)) throw new NotFoundException({ code: 'OPTIMIZER.RECORD_NOT_FOUND', message: 'recordId: must be opt-<16 hex>' });
    const tenant = tenantScope(this.tenancy, principal);
    const stored = await recordById(this.dataSource.manager, recordId);
    if (!stored || !recordVisibleTo(stored, tenant)) throw new NotFoundException({ code: 'OPTIMIZER.RECORD_NOT_FOUND', message: `no optimisation record ${recordId}` });
    const notifications = (await notificationsAbout(this.dataSource.manager, recordId)).filter((n) => notificationVisibleTo(n, tenant));
    return renderRecord(stored, notifications);
  }

  @Get('problems')
  @HtmlPage()
  async problems(@CurrentPrincipal() principal: Principal): Promise<string> {
    return renderProblems(await this.visible(principal));
  }
}
