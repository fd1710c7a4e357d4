/** Periodic and cron jobs with backoff, status and drain, for both halves of the project. */
export { Backoff, type BackoffOptions } from './backoff.js';
export {
  type CronSchedule,
  type CronScheduler,
  isCronExpression,
  nodeCronScheduler,
} from './cron-scheduler.js';
export { type FailureKind, type Job, type JobOptions, type JobStatus, startJob } from './job.js';
