#!/usr/bin/perl
# The XMLTV reference library's view of a guide, for comparison with what Onair stores.
# Usage: xmltv-reference.pl FILE [ZONE]
# Reads FILE (gunzipped by gzip when it ends in .gz) with XMLTV::parsefiles_callback, the parser
# behind tv_grep, tv_sort and tv_to_text, and converts every start and stop with XMLTV::Date
# (Date::Manip) to seconds since the epoch; times without an offset are read in ZONE (an Olson
# name, default UTC). Prints one line per programme, in file order:
#   channel TAB start TAB stop-or-empty TAB digest-of-the-whole-programme TAB counts
# where counts are the programme's rich elements as the library returns them, NAME=N separated
# by spaces, zero counts left out: episode-num, credits.ROLE (one per credit role), icon, image,
# sub-title, rating, star-rating, keyword, url. The library reads a programme's children in the
# DTD's order and skips, with a warning, one out of that order ("element X not expected here"),
# one its reader refuses ("skipping bad X", e.g. an empty <image>) or a second of a kind allowed
# once ("seen X twice", the later kept); those warnings, caught while the programme is read, are
# counted too as skipped.X and twice.X, so that a difference from another reader can be told
# from the library's own refusals.
# Exits non-zero, with the library's message on stderr, when the library rejects the file.
use strict;
use warnings;
use XMLTV;
use XMLTV::Date;
use Date::Manip;
use Digest::MD5 qw(md5_hex);
use Encode qw(decode encode);
use Storable qw(freeze);

$Storable::canonical = 1; # equal programmes freeze to equal bytes, as tv_sort compares them
my ($file, $zone) = @ARGV;
die "usage: $0 FILE [ZONE]\n" if not defined $file;
Date::Manip::Date_Init('SetDate=now,' . ($zone // 'UTC'));

if ($file =~ /\.gz$/) {
    open(STDIN, '-|', 'gzip', '-dc', '--', $file) or die "cannot gunzip $file: $!\n";
} else {
    open(STDIN, '<', $file) or die "cannot open $file: $!\n";
}
binmode STDOUT, ':raw';

# Guides repeat the same times across channels; Date::Manip is slow, so each text is parsed once.
my %seconds;
sub seconds {
    my $text = shift;
    return '' if not defined $text;
    return $seconds{$text} //= UnixDate(parse_date($text), '%s');
}

# The library keeps the document's encoding (XMLTV.pm's KEEP_ENCODING): its strings are the
# document's bytes. Channel ids are printed as UTF-8 whatever the document's encoding was.
my $encoding = 'UTF-8';
sub field {
    my $text = shift;
    $text = encode('UTF-8', decode($encoding, $text)) if $text =~ /[^\x00-\x7f]/;
    $text =~ s/([\\\t\n])/$1 eq "\t" ? '\\t' : $1 eq "\n" ? '\\n' : '\\\\'/ge;
    return $text;
}

# The library's warnings about the programme being read, gathered until its callback runs: the
# reader calls it right after reading the programme's children. Each still goes to stderr.
my %refused;
$SIG{__WARN__} = sub {
    my $message = shift;
    if ($message =~ /^element (\S+) not expected here/ or $message =~ /^skipping bad (\S+)/) {
        $refused{"skipped.$1"}++;
    } elsif ($message =~ /^seen (\S+) twice/) {
        $refused{"twice.$1"}++;
    }
    print STDERR $message;
};

my @LISTS = ('episode-num', 'icon', 'image', 'sub-title', 'rating', 'star-rating', 'keyword', 'url');
my @ROLES = qw(director actor writer adapter producer composer editor presenter commentator guest);
sub counts {
    my $p = shift;
    my @counts;
    foreach my $name (@LISTS) {
        my $n = ref $p->{$name} eq 'ARRAY' ? scalar @{$p->{$name}} : 0;
        push @counts, "$name=$n" if $n;
    }
    # 'credits' => { ROLE => [name or [name, ...], ...] }: one entry per credit.
    my $credits = $p->{credits} // {};
    foreach my $role (@ROLES) {
        my $n = ref $credits->{$role} eq 'ARRAY' ? scalar @{$credits->{$role}} : 0;
        push @counts, "credits.$role=$n" if $n;
    }
    push @counts, map { "$_=$refused{$_}" } sort keys %refused;
    %refused = ();
    return join(' ', @counts);
}

my ($channels, $programmes) = (0, 0);
XMLTV::parsefiles_callback(sub { $encoding = shift // 'UTF-8' }, undef, sub { $channels++; %refused = () }, sub {
    my $p = shift;
    $programmes++;
    print join("\t", field($p->{channel}), seconds($p->{start}), seconds($p->{stop}),
        md5_hex(freeze($p)), counts($p)), "\n";
}, '-');
close(STDIN) or die "reading $file failed (gzip exit status $?)\n";
print STDERR "reference: $channels channel elements, $programmes programmes\n";
