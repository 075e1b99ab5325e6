/*
 * Tests/c/groundtruth.h -- a file's packets as ffprobe lists them, for
 * comparing what fpx_player_read_packet returns against outside truth.
 *
 *   gt_load(&gt, path)  runs ffprobe -show_packets (stream_index, pts, dts,
 *                       size, pos, flags and an adler32 of the payload)
 *   gt_load_csv(&gt, csv)  the same, from a file that command's output was
 *                       written to (made once, outside the test)
 *   gt_find(&gt, s, pos)  the entry of stream s at byte position pos
 *   gt_adler32(data, n)   the same checksum over a packet's bytes
 *
 * Include check.h first.
 */
#ifndef FPX_TEST_GROUNDTRUTH_H
#define FPX_TEST_GROUNDTRUTH_H

typedef struct gt_packet {
    int stream;
    int64_t pts, dts, pos;
    size_t size;
    int key;
    uint32_t adler;
    size_t order; /* index in demux order (the order ffprobe lists them) */
} gt_packet;

typedef struct gt_file {
    gt_packet *p;
    size_t n;
} gt_file;

static inline uint32_t gt_adler32(const uint8_t *d, size_t n)
{
    uint32_t a = 1, b = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        a = (a + d[i]) % 65521u;
        b = (b + a) % 65521u;
    }
    return (b << 16) | a;
}

static inline int64_t gt_ts_(const char *s)
{
    if (strncmp(s, "N/A", 3) == 0)
        return FPX_NOPTS;
    return strtoll(s, NULL, 10);
}

static inline int gt_cmp_(const void *a, const void *b)
{
    const gt_packet *x = a, *y = b;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    return 0;
}

/* Reads ffprobe's csv (the command gt_load runs) from f. Returns the number of packets. */
static inline size_t gt_parse_(gt_file *gt, FILE *f)
{
    char line[512];
    size_t cap = 0;
    gt->p = NULL;
    gt->n = 0;
    /* One record per packet; side data (MPEG-TS, audio priming) may break a
     * record over several lines: a record ends at its "adler32:" field. */
    while (fgets(line, sizeof line, f)) {
        char *field[8];
        int nf = 0;
        char *s = line, *h;
        gt_packet e;
        if (line[0] < '0' || line[0] > '9')
            continue;
        while (nf < 8) {
            field[nf++] = s;
            s = strchr(s, ',');
            if (!s)
                break;
            *s++ = 0;
        }
        if (nf < 6)
            continue;
        e.stream = atoi(field[0]);
        e.pts = gt_ts_(field[1]);
        e.dts = gt_ts_(field[2]);
        e.size = (size_t)strtoull(field[3], NULL, 10);
        e.pos = strncmp(field[4], "N/A", 3) == 0 ? -1 : strtoll(field[4], NULL, 10);
        e.key = field[5][0] == 'K';
        h = NULL;
        if (nf >= 7)
            h = strstr(field[6], "adler32:");
        while (!h && fgets(line, sizeof line, f))
            h = strstr(line, "adler32:");
        e.adler = h ? (uint32_t)strtoul(h + 8, NULL, 16) : 0;
        e.order = gt->n;
        if (gt->n == cap) {
            gt_packet *np;
            cap = cap ? cap * 2 : 1024;
            np = realloc(gt->p, cap * sizeof *np);
            if (!np)
                break;
            gt->p = np;
        }
        gt->p[gt->n++] = e;
    }
    if (gt->n)
        qsort(gt->p, gt->n, sizeof *gt->p, gt_cmp_);
    return gt->n;
}

/* Runs ffprobe on path. Returns the number of packets, 0 on failure. */
static inline size_t gt_load(gt_file *gt, const char *path)
{
    char cmd[8192];
    FILE *f;
    size_t n;
    gt->p = NULL;
    gt->n = 0;
    snprintf(cmd, sizeof cmd,
             "ffprobe -v error -show_entries packet=stream_index,pts,dts,size,pos,flags,data_hash "
             "-show_data_hash adler32 -of csv=p=0 '%s'",
             path);
    f = popen(cmd, "r");
    if (!f)
        return 0;
    n = gt_parse_(gt, f);
    pclose(f);
    return n;
}

/* Reads a file ffprobe wrote with the same command (stdout to csv_path). */
static inline size_t gt_load_csv(gt_file *gt, const char *csv_path)
{
    FILE *f = fopen(csv_path, "r");
    size_t n;
    gt->p = NULL;
    gt->n = 0;
    if (!f)
        return 0;
    n = gt_parse_(gt, f);
    fclose(f);
    return n;
}

static inline const gt_packet *gt_find(const gt_file *gt, int stream, int64_t pos)
{
    gt_packet key;
    key.stream = stream;
    key.pos = pos;
    return bsearch(&key, gt->p, gt->n, sizeof *gt->p, gt_cmp_);
}

static inline void gt_free(gt_file *gt)
{
    free(gt->p);
    gt->p = NULL;
    gt->n = 0;
}

#endif /* FPX_TEST_GROUNDTRUTH_H */
