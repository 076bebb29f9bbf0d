// rrd_update's file-format and consolidation arithmetic, checked against
// numbers worked out by hand from rrdtool's rrd_format.h (LP64). The
// headers are header-only, so this test compiles them without the module.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../rrd_image.h"
#include "../rrd_layout.h"
#include "../rrd_schedule.h"

namespace iomimic::rrd_update {
namespace {

Layout Cacti(uint64_t ds) {
  std::vector<Archive> a;
  EXPECT_EQ(ParseArchives(kCactiArchives, &a), "");
  return Layout(ds, a);
}

TEST(RrdLayout, CactiFileWithOneDataSourceIs95608Bytes) {
  const Layout l = Cacti(1);
  ASSERT_EQ(l.archive_count(), 16u);
  EXPECT_EQ(l.ds_def_offset(), 128u);
  EXPECT_EQ(l.rra_def_offset(), 128u + 120u);
  EXPECT_EQ(l.live_head_offset(), 248u + 16u * 120u);            // 2168
  EXPECT_EQ(l.pdp_prep_offset(), 2168u + 16u);                    // 2184
  EXPECT_EQ(l.cdp_prep_offset(), 2184u + 112u);                   // 2296
  EXPECT_EQ(l.rra_ptr_offset(), 2296u + 16u * 80u);               // 3576
  EXPECT_EQ(l.header_bytes(), 3576u + 16u * 8u);                  // 3704
  EXPECT_EQ(l.live_bytes(), 3704u - 2168u);
  // 4 CFs x (600 + 700 + 775 + 797) rows x 8 bytes.
  EXPECT_EQ(l.file_bytes(), 3704u + 4u * 2872u * 8u);             // 95608, ~93.4 KiB
  EXPECT_EQ(l.archive_offset(0), 3704u);
  EXPECT_EQ(l.archive_offset(1), 3704u + 600u * 8u);
  EXPECT_EQ(l.archive_offset(4), 3704u + 2872u * 8u);             // MIN:1:600
  EXPECT_EQ(l.archive_offset(15), 3704u + (4u * 2872u - 797u) * 8u);
  EXPECT_EQ(l.row_offset(1, 10), 3704u + 600u * 8u + 80u);
}

TEST(RrdLayout, TwoDataSourcesDoubleRowsAndPerDsSections) {
  const Layout l = Cacti(2);
  EXPECT_EQ(l.row_bytes(), 16u);
  EXPECT_EQ(l.header_bytes(),
            128u + 2 * 120u + 16 * 120u + 16u + 2 * 112u + 2 * 16 * 80u + 16 * 8u);
  EXPECT_EQ(l.file_bytes(), l.header_bytes() + 4u * 2872u * 16u);
  EXPECT_EQ(l.row_offset(0, 3), l.header_bytes() + 3u * 16u);
}

TEST(RrdLayout, ParsesRrdtoolSyntaxAndRejectsBadEntries) {
  std::vector<Archive> a;
  EXPECT_EQ(ParseArchives("RRA:AVERAGE:0.5:1:600 RRA:MAX:0.5:6:700", &a), "");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1].cf, "MAX");
  EXPECT_EQ(a[1].pdp_cnt, 6u);
  EXPECT_EQ(a[1].rows, 700u);
  EXPECT_NE(ParseArchives("AVERAGE:1", &a).find("'AVERAGE:1'"), std::string::npos);
  EXPECT_NE(ParseArchives("MEDIAN:1:10", &a).find("AVERAGE, MIN, MAX or LAST"), std::string::npos);
  EXPECT_NE(ParseArchives("LAST:0:10", &a).find("steps per row"), std::string::npos);
  EXPECT_NE(ParseArchives("LAST:1:x", &a).find("rows"), std::string::npos);
  EXPECT_EQ(ParseArchives(" , ", &a), "no archive given");
}

TEST(RrdSchedule, OrdinaryHalfHourTwoHourAndMidnightPasses) {
  const Layout l = Cacti(1);
  const uint64_t step = 300;
  // 2023-11-14 22:15 UTC: only the 1-step archive of each CF.
  EXPECT_EQ(DueArchives(l, 1700000100, step, 0), (std::vector<uint32_t>{0, 4, 8, 12}));
  // 22:30: the 6-step (30 min) archives too.
  EXPECT_EQ(DueArchives(l, 1700001000, step, 0).size(), 8u);
  // 22:00: a 2-hour boundary, the 24-step archives too.
  EXPECT_EQ(DueArchives(l, 1699999200, step, 0),
            (std::vector<uint32_t>{0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14}));
  // Midnight UTC: every archive.
  EXPECT_EQ(DueArchives(l, 1699920000, step, 0).size(), 16u);
  // Pass 3 after 22:15 is 22:30.
  EXPECT_EQ(PassTime(1700000100, step, 3), 1700001000u);
  EXPECT_EQ(DueArchives(l, 1700000100, step, 3).size(), 8u);
  // Over a day of passes, an archive of N steps gets 288 / N rows.
  uint64_t rows[16] = {};
  for (uint64_t p = 0; p < 288; ++p) {
    for (uint32_t a : DueArchives(l, 1700000100, step, p)) ++rows[a];
  }
  EXPECT_EQ(rows[0], 288u);
  EXPECT_EQ(rows[1], 48u);
  EXPECT_EQ(rows[2], 12u);
  EXPECT_EQ(rows[3], 1u);
}

TEST(RrdImage, FreshImageLooksLikeRrdtoolCreate) {
  const Layout l = Cacti(1);
  std::vector<char> img = FreshImage(l, 300, 1700000100 - 300);
  ASSERT_EQ(img.size(), 95608u);
  const char* b = img.data();
  EXPECT_TRUE(HasRrdCookie(b));
  EXPECT_EQ(std::string(b + 4), "0003");
  EXPECT_EQ(LoadU64(b, kStatDsCntAt), 1u);
  EXPECT_EQ(LoadU64(b, kStatRraCntAt), 16u);
  EXPECT_EQ(LoadU64(b, kStatPdpStepAt), 300u);
  EXPECT_EQ(std::string(b + l.rra_def_offset() + 4 * kRraDefBytes), "MIN");
  EXPECT_EQ(LoadU64(b, l.rra_def_offset() + 3 * kRraDefBytes + kRraRowCntAt), 797u);
  EXPECT_EQ(LoadU64(b, l.rra_def_offset() + 3 * kRraDefBytes + kRraPdpCntAt), 288u);
  EXPECT_EQ(LoadU64(b, l.live_head_offset()), 1700000100u - 300u);
  EXPECT_TRUE(std::isnan(LoadDouble(b, l.archive_offset(0))));
  EXPECT_TRUE(std::isnan(LoadDouble(b, l.file_bytes() - 8)));
  SetInitialRows(l, 7, 42, img.data());
  for (size_t i = 0; i < l.archive_count(); ++i) {
    const uint64_t row = LoadU64(b, CurRowOffset(l, i));
    EXPECT_LT(row, l.archive(i).rows);
    EXPECT_EQ(row, InitialRow(7, 42, i, l.archive(i).rows));
  }
}

}  // namespace
}  // namespace iomimic::rrd_update
