#!/usr/bin/perl
# The XMLTV reference library's view of a guide, for comparison with what Onair stores.
# Usage: xmltv-reference.pl FILE [ZONE]
# Reads FILE (gunzipped by gzip when it ends in .gz) with XMLTV::parsefiles_callback, the parser
# behind tv_grep, tv_sort and tv_to_text, and converts every start and stop with XMLTV::Date
# (Date::Manip) to seconds since the epoch; times without an offset are read in ZONE (an Olson
# name, default UTC). Prints one line per programme, in file order:
#   channel TAB start TAB stop-or-empty TAB digest-of-the-whole-programme
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

my ($channels, $programmes) = (0, 0);
XMLTV::parsefiles_callback(sub { $encoding = shift // 'UTF-8' }, undef, sub { $channels++ }, sub {
    my $p = shift;
    $programmes++;
    print join("\t", field($p->{channel}), seconds($p->{start}), seconds($p->{stop}),
        md5_hex(freeze($p))), "\n";
}, '-');
close(STDIN) or die "reading $file failed (gzip exit status $?)\n";
print STDERR "reference: $channels channel elements, $programmes programmes\n";
