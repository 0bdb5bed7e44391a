/* The result tags, byte for byte as upstream printed them (docs/separation.md section 8):
 * upstream's validator and assimilator parse this text. */
#include "separation.h"

static void tag_suffix(char *buf, size_t n, int member)
{
    if (member > 0)
        snprintf(buf, n, "%d", member);
    else
        buf[0] = '\0';
}

void sep_report_result(FILE *f, const sep_result *res, int member)
{
    char k[16];
    tag_suffix(k, sizeof k, member);
    fprintf(f, "<background_integral%s> %.15f </background_integral%s>\n", k,
            res->background_integral, k);
    fprintf(f, "<stream_integral%s> ", k);
    for (int j = 0; j < res->n_streams; j++)
        fprintf(f, " %.15f ", res->stream_integral[j]);
    fprintf(f, "</stream_integral%s>\n", k);
    fprintf(f, "<background_likelihood%s> %.15f </background_likelihood%s>\n", k,
            res->background_likelihood, k);
    fprintf(f, "<stream_only_likelihood%s> ", k);
    for (int j = 0; j < res->n_streams; j++)
        fprintf(f, " %.15f ", res->stream_only_likelihood[j]);
    fprintf(f, "</stream_only_likelihood%s>\n", k);
    fprintf(f, "<search_likelihood%s> %.15f </search_likelihood%s>\n", k, res->search_likelihood, k);
    fflush(f);
}
