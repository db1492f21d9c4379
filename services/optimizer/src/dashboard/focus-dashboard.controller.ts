import { Access, CurrentPrincipal, TENANCY, tenantScope, type Principal, type Tenancy } from '@aoc/auth';
import { DATA_SOURCE } from '@aoc/service-host';
import { applyDecorators, Controller, Get, Header, Inject, NotFoundException, Param } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { checkpointsOf } from '../persistence/checkpoint-store';
import { focusById, focusesWithCheckpoints, focusVisibleTo } from '../persistence/focus-store';
import { signals } from '../persistence/signal-store';
import { renderFocus, renderFocusList } from './focus.view';

const HtmlPage = (): MethodDecorator => applyDecorators(Header('content-type', 'text/html; charset=utf-8'), Header('x-content-type-options', 'nosniff'), Header('cache-control', 'no-store'));
const FOCUS_ID = /^focus-[0-9a-f]{12}$/;

/**
 * The optimizer's read-only pages and JSON: Focuses, their cases, checkpoints and gate tables. A
 * Focus gathers cases of many tickets: a principal confined to a tenant sees the Focuses whose
 * tickets are all its tenant's (another tenant's is "not found") and the open signals of its own
 * tickets; one who sees every tenant sees all.
 */
@Controller()
@Access('viewer')
export class FocusDashboardController {
  constructor(
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(TENANCY) private readonly tenancy: Tenancy,
  ) {}

  private async one(focusId: string, principal: Principal) {
    if (!FOCUS_ID.test(focusId)) throw new NotFoundException({ code: 'OPTIMIZER.FOCUS_NOT_FOUND', message: 'focusId: must be focus-<12 hex>' });
    const focus = await focusById(this.dataSource.manager, focusId);
    if (!focus || !focusVisibleTo(focus, tenantScope(this.tenancy, principal))) throw new NotFoundException({ code: 'OPTIMIZER.FOCUS_NOT_FOUND', message: `no Focus ${focusId}` });
    return { focus, checkpoints: await checkpointsOf(this.dataSource.manager, focusId) };
  }

  @Get('focuses')
  @HtmlPage()
  async list(@CurrentPrincipal() principal: Principal): Promise<string> {
    const tenant = tenantScope(this.tenancy, principal);
    return renderFocusList(await this.visible(tenant), await signals(this.dataSource.manager, { state: 'open', ...(tenant === null ? {} : { tenant }) }));
  }

  @Get('focuses/:focusId')
  @HtmlPage()
  async detail(@Param('focusId') focusId: string, @CurrentPrincipal() principal: Principal): Promise<string> {
    const { focus, checkpoints } = await this.one(focusId, principal);
    return renderFocus(focus, checkpoints);
  }

  @Get('v1/focuses')
  async listJson(@CurrentPrincipal() principal: Principal): Promise<unknown> {
    return { focuses: await this.visible(tenantScope(this.tenancy, principal)) };
  }

  @Get('v1/focuses/:focusId')
  async detailJson(@Param('focusId') focusId: string, @CurrentPrincipal() principal: Principal): Promise<unknown> {
    return this.one(focusId, principal);
  }

  private async visible(tenant: string | null) {
    return (await focusesWithCheckpoints(this.dataSource.manager)).filter((f) => focusVisibleTo(f.focus, tenant));
  }
}
