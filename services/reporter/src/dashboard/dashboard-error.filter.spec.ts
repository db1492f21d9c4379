import { NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import { InvalidReportParamError } from '../reports/report-period';
import { toErrorPage } from './dashboard-error.filter';
import { DashboardParamError } from './dashboard-params';
import { renderErrorPage } from './error-page.view';

describe('dashboard error pages', () => {
  it('names every invalid parameter on a 400 page', () => {
    const page = toErrorPage(new DashboardParamError([{ field: 'limit', message: 'must be a whole number' }]));
    expect(page).toMatchObject({ status: 400, title: 'Bad request', message: 'Invalid parameter: limit.' });
    expect(renderErrorPage(page)).toContain('<li><code>limit</code>: must be a whole number</li>');
  });

  it('turns a parameter the reports reader refuses into a 400 page naming it', () => {
    const page = toErrorPage(new InvalidReportParamError('weekStart', 'must be a Monday'));
    expect(page).toMatchObject({ status: 400, issues: [{ field: 'weekStart', message: 'must be a Monday' }] });
  });

  it('keeps the message of HTTP exceptions and hides anything else', () => {
    expect(toErrorPage(new NotFoundException('Run r has not been published (yet).'))).toMatchObject({ status: 404, title: 'Not found', message: 'Run r has not been published (yet).' });
    expect(toErrorPage(new ServiceUnavailableException('later'))).toMatchObject({ status: 503, message: 'later' });
    const internal = toErrorPage(new Error('connection refused to 10.0.0.3:5432'));
    expect(internal.status).toBe(500);
    expect(renderErrorPage(internal)).not.toContain('10.0.0.3');
  });
});
