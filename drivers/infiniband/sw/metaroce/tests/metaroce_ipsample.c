// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce_ipsample: where the kernel's time goes in the test VM, module code
 * included (tools/bench/profile.sh, BENCH_IPSAMPLE=1). Not part of metaroce.ko.
 *
 * Under QEMU TCG perf's cpu-clock samples all land in the idle loop, and the
 * tick profiler (/proc/profile) sees only the core kernel's text. This module
 * arms a hard-irq hrtimer on every online CPU and records the instruction
 * pointer each expiry interrupted: a kernel address, or 0 for user mode.
 *
 *   echo 1 > /sys/kernel/debug/metaroce_ipsample/enable   (clears, then samples)
 *   echo 0 > /sys/kernel/debug/metaroce_ipsample/enable
 *   cat /sys/kernel/debug/metaroce_ipsample/samples       "count function" lines
 *
 * The period is not a divisor of the scheduler tick, so that the samples do
 * not fall in step with the work the tick itself starts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/irq_regs.h>

static unsigned int period_us = 997;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "Sampling period per CPU in microseconds, 100..100000 (default 997)");

static unsigned int max_samples = 32768;
module_param(max_samples, uint, 0444);
MODULE_PARM_DESC(max_samples, "Samples kept per CPU, 1..1048576 (default 32768); later ones are counted as dropped");

struct ipsample_cpu {
	struct hrtimer timer;
	unsigned long *ip;
	unsigned int n;
	unsigned int dropped;
};

static struct ipsample_cpu *ipsample_cpus;	/* nr_cpu_ids entries */
static DEFINE_MUTEX(ipsample_lock);		/* enable and samples */
static bool ipsample_running;
static ktime_t ipsample_period;			/* period_us, checked at load */
static struct dentry *ipsample_dir;

static enum hrtimer_restart ipsample_tick(struct hrtimer *t)
{
	struct ipsample_cpu *s = container_of(t, struct ipsample_cpu, timer);
	struct pt_regs *regs = get_irq_regs();

	if (s->n < max_samples)
		s->ip[s->n++] = regs && !user_mode(regs) ? instruction_pointer(regs) : 0;
	else
		s->dropped++;
	hrtimer_forward_now(t, ipsample_period);
	return HRTIMER_RESTART;
}

/* On each CPU, from on_each_cpu(): a pinned timer stays on the CPU that started it. */
static void ipsample_arm_this_cpu(void *unused)
{
	hrtimer_start(&ipsample_cpus[smp_processor_id()].timer, ipsample_period,
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void ipsample_stop(void)
{
	unsigned int cpu;

	lockdep_assert_held(&ipsample_lock);
	/* Every timer is initialised; cancelling one that is not queued does nothing. */
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		hrtimer_cancel(&ipsample_cpus[cpu].timer);
	ipsample_running = false;
}

static void ipsample_start(void)
{
	unsigned int cpu;

	lockdep_assert_held(&ipsample_lock);
	ipsample_stop();
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		ipsample_cpus[cpu].n = 0;
		ipsample_cpus[cpu].dropped = 0;
	}
	cpus_read_lock();
	on_each_cpu(ipsample_arm_this_cpu, NULL, 1);
	cpus_read_unlock();
	ipsample_running = true;
}

static ssize_t enable_write(struct file *file, const char __user *buf, size_t len,
			    loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(buf, len, &on);
	if (ret)
		return ret;
	mutex_lock(&ipsample_lock);
	if (on)
		ipsample_start();
	else
		ipsample_stop();
	mutex_unlock(&ipsample_lock);
	return len;
}

static ssize_t enable_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	char s[2] = { READ_ONCE(ipsample_running) ? '1' : '0', '\n' };

	return simple_read_from_buffer(buf, len, ppos, s, sizeof(s));
}

static const struct file_operations enable_fops = {
	.owner = THIS_MODULE,
	.read = enable_read,
	.write = enable_write,
	.llseek = default_llseek,
};

static int ipsample_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* One line per distinct address: its count and function (user mode: "[user]"). */
static int samples_show(struct seq_file *m, void *unused)
{
	unsigned int cpu, i, run, dropped = 0, total = 0;
	unsigned long *ip;
	int ret = 0;

	mutex_lock(&ipsample_lock);
	if (ipsample_running) {
		ret = -EBUSY;	/* the timers still write; stop them first */
		goto out;
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct ipsample_cpu *s = &ipsample_cpus[cpu];

		if (!s->n)
			continue;
		ip = s->ip;
		sort(ip, s->n, sizeof(*ip), ipsample_cmp, NULL);
		for (i = 0; i < s->n; i += run) {
			for (run = 1; i + run < s->n && ip[i + run] == ip[i]; run++)
				;
			if (ip[i])
				seq_printf(m, "%u %ps\n", run, (void *)ip[i]);
			else
				seq_printf(m, "%u [user]\n", run);
		}
		total += s->n;
		dropped += s->dropped;
	}
	seq_printf(m, "# %u samples, %u dropped, period %u us\n", total, dropped, period_us);
out:
	mutex_unlock(&ipsample_lock);
	return ret;
}
DEFINE_SHOW_ATTRIBUTE(samples);

static void ipsample_free(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		vfree(ipsample_cpus[cpu].ip);
	kfree(ipsample_cpus);
}

static int __init ipsample_init(void)
{
	unsigned int cpu;

	if (period_us < 100 || period_us > 100000 || !max_samples || max_samples > 1U << 20) {
		pr_err("period_us must be 100..100000 and max_samples 1..1048576\n");
		return -EINVAL;
	}
	ipsample_period = ns_to_ktime((u64)period_us * NSEC_PER_USEC);
	ipsample_cpus = kcalloc(nr_cpu_ids, sizeof(*ipsample_cpus), GFP_KERNEL);
	if (!ipsample_cpus)
		return -ENOMEM;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct ipsample_cpu *s = &ipsample_cpus[cpu];

		hrtimer_init(&s->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		s->timer.function = ipsample_tick;
		if (!cpu_possible(cpu))
			continue;
		s->ip = vmalloc_array(max_samples, sizeof(*s->ip));
		if (!s->ip) {
			ipsample_free();
			return -ENOMEM;
		}
	}
	ipsample_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("enable", 0600, ipsample_dir, NULL, &enable_fops);
	debugfs_create_file("samples", 0400, ipsample_dir, NULL, &samples_fops);
	return 0;
}

static void __exit ipsample_exit(void)
{
	debugfs_remove(ipsample_dir);
	mutex_lock(&ipsample_lock);
	ipsample_stop();
	mutex_unlock(&ipsample_lock);
	ipsample_free();
}

module_init(ipsample_init);
module_exit(ipsample_exit);
MODULE_DESCRIPTION("MetaRoCE test aid: kernel instruction pointers sampled from a per-CPU hrtimer");
MODULE_LICENSE("GPL");
