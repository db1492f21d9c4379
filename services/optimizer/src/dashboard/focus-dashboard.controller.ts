import { Access, CurrentPrincipal, TENANCY, tenantScope, type Principal, type Tenancy } from '@aoc/auth';
import { DATA_SOURCE } from '@aoc/service-host';
import { Controller, Get, Inject, NotFoundException, Param } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { focusPath, focusState } from '../focus/focus-path';
import { checkpointsOf } from '../persistence/checkpoint-store';
import { focusHistory } from '../persistence/focus-history';
import { focusById, focusesWithCheckpoints, focusVisibleTo } from '../persistence/focus-store';
import { notificationsAbout, notificationVisibleTo } from '../persistence/notification-store';
import { signals } from '../persistence/signal-store';
import { renderFocus, renderFocusList } from './focus.view';
import { HtmlPage } from './html-page';

/** A Focus id; a grouping offered again after its rejection is `focus-<12 hex>-<n>`. */
export const FOCUS_ID = /^focus-[0-9a-f]{12}(-\d{1,3})?$/;

/**
 * The optimizer's read-only pages and JSON: Focuses, their cases, checkpoints and gate tables. A
 * Focus gathers cases of many tickets: a principal confined to a tenant sees the Focuses whose
 * tickets are all its tenant's (another tenant's is "not found") and the open signals of its own
 * tickets; one who sees every tenant sees all. A Focus's page draws the state machine with its
 * current status and the path it took (`/v1/focuses/:id/state` as JSON).
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
    const tenant = tenantScope(this.tenancy, principal);
    const notifications = (await notificationsAbout(this.dataSource.manager, focus.focusId)).filter((n) => notificationVisibleTo(n, tenant));
    return renderFocus(focus, checkpoints, focusPath(focus.status, await focusHistory(this.dataSource.manager, focus.focusId), checkpoints), notifications);
  }

  @Get('v1/focuses')
  async listJson(@CurrentPrincipal() principal: Principal): Promise<unknown> {
    return { focuses: await this.visible(tenantScope(this.tenancy, principal)) };
  }

  @Get('v1/focuses/:focusId')
  async detailJson(@Param('focusId') focusId: string, @CurrentPrincipal() principal: Principal): Promise<unknown> {
    return this.one(focusId, principal);
  }

  /** Where the Focus is in the state machine, the path it took (recorded, or inferred from its checkpoints) and every move with how often it took it. */
  @Get('v1/focuses/:focusId/state')
  async stateJson(@Param('focusId') focusId: string, @CurrentPrincipal() principal: Principal): Promise<unknown> {
    const { focus, checkpoints } = await this.one(focusId, principal);
    return focusState(focus.focusId, focus.status, focusPath(focus.status, await focusHistory(this.dataSource.manager, focus.focusId), checkpoints));
  }

  private async visible(tenant: string | null) {
    return (await focusesWithCheckpoints(this.dataSource.manager)).filter((f) => focusVisibleTo(f.focus, tenant));
  }
}
