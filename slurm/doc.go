// Package slurm runs a sharded prcaps command on a Slurm cluster: an
// array job of N tasks, task I running shard I/N of the work into a log of
// its own, and a merge job that starts when every task has succeeded
// (--dependency=afterok) and makes the tables from the tasks' logs.
//
// Script writes the two batch scripts; Submit hands them to the real
// sbatch. Nothing here imitates the scheduler: a task's shard number is
// the $SLURM_ARRAY_TASK_ID Slurm gives it, and a failed task is rerun by
// resubmitting its index (sbatch --array=I), the same command, which
// resumes from its log. See docs/cluster.md.
package slurm
