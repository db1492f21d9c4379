import { Controller, Get, Inject, Query } from '@nestjs/common';
import { Access } from '@aoc/auth';
import { z } from 'zod';
import type { AuditEvent, AuditLog } from './audit';

export const EDGE_AUDIT = Symbol('EDGE_AUDIT');

const AuditQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) });

/** The role's audit trail, newest first; admins only. */
@Controller('v1/audit')
@Access('admin')
export class AuditController {
  constructor(@Inject(EDGE_AUDIT) private readonly audit: AuditLog) {}

  @Get()
  async list(@Query() query: unknown): Promise<{ events: AuditEvent[] }> {
    const { limit } = AuditQuery.parse(query);
    return { events: await this.audit.recent(limit) };
  }
}
